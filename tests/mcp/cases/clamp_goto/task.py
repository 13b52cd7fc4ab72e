"""Clamp with a goto, which larkc's CUDA frontend does not read: a located error."""

import torch

from larkc import ScalarArg, Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, -1.0, 1.0)


task = Task(
    name="clamp_goto",
    source="kernel.cu",
    kernel="clamp_goto",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"lo": ScalarArg(-1.0), "hi": ScalarArg(1.0)},
    symbols=["n"],
    instances=[{"n": 64}],
    grid=["cdiv(n, 64)"],
    block=[64],
)
