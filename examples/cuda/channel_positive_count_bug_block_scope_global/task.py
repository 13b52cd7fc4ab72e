"""Seeded bug: per-channel count of positive values whose blocks merge their counts into the global
counts with block-scoped atomics (atomicAdd_block), atomic only towards the threads of one block: a
race between blocks."""

import torch

from larkc import Task, TensorSpec


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x > 0).sum(0).to(torch.int32)


task = Task(
    name="channel_positive_count_bug_block_scope_global",
    source="kernel.cu",
    kernel="channel_positive_count",
    reference=reference,
    inputs={"x": "f32[rows, 64]"},
    outputs={"counts": TensorSpec.of((("64",), "i32", "zeros"), "output 'counts'")},
    symbols=["rows"],
    constraints=["rows <= 65536"],
    instances=[{"rows": 1}, {"rows": 5}, {"rows": 33}],
    grid=["min(cdiv(rows * 64, 128), 4)"],
    block=[128],
    expected_failure="race",
)
