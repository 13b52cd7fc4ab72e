import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x != 0, 1.0 / x, torch.zeros_like(x))


task = Task(
    source="kernel.py",
    kernel="safe_recip_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}],
    grid=["cdiv(n, 128)"],
    block=[1],
    tolerance={"rtol": 1e-5, "atol": 1e-6},
)
