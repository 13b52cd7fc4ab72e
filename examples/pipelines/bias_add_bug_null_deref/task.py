"""Seeded bug: an optional bias bound to the null pointer and read without a check."""

import torch

from larkc.tasks import NullArg, Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.clone()  # no bias


task = Task(
    name="bias_add_bug_null_deref",
    source="kernel.cu",
    kernel="add_bias_unchecked",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows, d]"},
    bindings={"bias": NullArg()},
    symbols=["rows", "d"],
    constraints=["rows * d <= 16777216"],
    instances=[{"rows": 1, "d": 1}, {"rows": 3, "d": 100}],
    grid=["cdiv(rows * d, 256)"],
    block=[256],
    expected_failure="oob",
)
