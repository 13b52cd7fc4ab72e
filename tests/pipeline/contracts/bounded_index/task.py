"""copy_clamped: out = x through a device function whose postcondition is `BOUND` (n, or a wrong n - 1)."""

import torch

from larkc import ShapeArg, Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


task = Task(
    name="bounded_index",
    source="kernel.cu",
    kernel="copy_clamped",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"n": ShapeArg("n")},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 40}],
    grid=["cdiv(n, 32)"],
    block=[32],
    defines={"BOUND": "n"},
)
