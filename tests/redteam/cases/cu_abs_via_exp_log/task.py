import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.abs(x)


task = Task(
    source="kernel.cu",
    kernel="abs_logdomain_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 9}],
    grid=["cdiv(n, 128)"],
    block=[128],
    tolerance={"rtol": 1e-5, "atol": 1e-6},
)
