import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.log(1 + torch.abs(x))


task = Task(
    source="kernel.cu",
    kernel="symlog_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}],
    grid=["cdiv(n, 128)"],
    block=[128],
    tolerance={"rtol": 1e-5, "atol": 1e-6},
)
