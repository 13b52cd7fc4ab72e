import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.sqrt(torch.clamp(x - 1.0, min=0.0))


task = Task(
    source="kernel.cu",
    kernel="hinge_sqrt_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 9}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
