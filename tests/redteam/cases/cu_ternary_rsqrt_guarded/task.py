import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, torch.rsqrt(x), 0.0)


task = Task(
    source="kernel.cu",
    kernel="safe_rsqrt_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 7}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
