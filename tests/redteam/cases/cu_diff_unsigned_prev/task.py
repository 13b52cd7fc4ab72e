import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x - torch.cat([torch.zeros(1), x[:-1]])


task = Task(
    source="kernel.cu",
    kernel="diff_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 6}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
