"""Seeded bug: dot product adding block partials into *out with a plain ``+=`` (a race when the
grid has more than one block)."""

import torch

from larkc import Task, TensorSpec


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.dot(x, y).reshape(1)


task = Task(
    name="dot_product_bug_racy_accum",
    source="kernel.cu",
    kernel="dot_product",
    reference=reference,
    inputs={"x": "f32[n]", "y": "f32[n]"},
    outputs={"out": TensorSpec.of((("1",), "f32", "zeros"), "output 'out'")},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 300}, {"n": 2049}, {"n": 5000}],
    grid=["min(cdiv(n, 256), 8)"],
    block=[256],
    expected_failure="race",
)
