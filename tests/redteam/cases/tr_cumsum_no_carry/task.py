import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=0)


task = Task(
    source="kernel.py",
    kernel="cumsum_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "BLOCK": 64},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 5}, {"n": 64}],
    grid=["cdiv(n, 64)"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
