"""saxpy with a scalar parameter; the reference is an ``nn.Module`` built from ``init_inputs``."""

import torch
from torch import nn

from larkc import ScalarArg, Task

A = 2.5


class Saxpy(nn.Module):
    def __init__(self, a: float) -> None:
        super().__init__()
        self.a = a

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.a * x + y


task = Task(
    name="saxpy",
    source="kernel.cu",
    kernel="saxpy",
    reference=Saxpy,
    init_inputs=[A],
    inputs={"x": "f32[n]", "y": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"a": ScalarArg(A)},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 777}, {"n": 5000}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
