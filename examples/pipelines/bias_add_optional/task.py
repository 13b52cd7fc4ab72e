"""An optional bias: the task binds it to the null pointer, and the kernel checks for it."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.clone()  # no bias


task = Task(
    name="bias_add_optional",
    source="kernel.cu",
    kernel="add_optional_bias",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows, d]"},
    bindings={"bias": None},
    symbols=["rows", "d"],
    constraints=["rows * d <= 16777216"],
    instances=[{"rows": 1, "d": 1}, {"rows": 3, "d": 100}, {"rows": 7, "d": 130}],
    grid=["cdiv(rows * d, 256)"],
    block=[256],
)
