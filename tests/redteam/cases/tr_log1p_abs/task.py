import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    mag = torch.log(1 + torch.abs(x))
    return torch.where(x < 0, -mag, mag)


task = Task(
    source="kernel.py",
    kernel="symlog_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 6}],
    grid=["cdiv(n, 128)"],
    block=[1],
    tolerance={"rtol": 1e-5, "atol": 1e-6},
)
