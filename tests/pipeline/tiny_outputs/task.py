"""y = x * 1e-7: every true output is far below the float32 tolerance's absolute term at scale 1."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * 1e-7


task = Task(
    name="scale_tiny",
    source="kernel.cu",
    kernel="scale_tiny",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 1}, {"n": 300}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
