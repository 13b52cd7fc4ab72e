"""|x| through the float's bits: correct, but a bit reinterpretation of data is beyond the symbolic engine."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.abs(x)


task = Task(
    name="abs_bits",
    source="kernel.cu",
    kernel="abs_bits",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 100}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
