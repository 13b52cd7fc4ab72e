"""Seeded bug: histogram whose blocks merge their counts into the global histogram with block-scoped
atomics (atomicAdd_block), atomic only towards the threads of one block: a race between blocks."""

import torch

from larkc import Task, TensorSpec


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x[:, None] == torch.arange(64)[None, :]).sum(0).to(torch.int32)


task = Task(
    name="histogram_bug_block_scope_global",
    source="kernel.cu",
    kernel="histogram",
    reference=reference,
    inputs={"x": "i32[n] in [0, 64)"},
    outputs={"hist": TensorSpec.of((("64",), "i32", "zeros"), "output 'hist'")},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 300}, {"n": 2049}],
    grid=["min(cdiv(n, 128), 4)"],
    block=[128],
    expected_failure="race",
)
