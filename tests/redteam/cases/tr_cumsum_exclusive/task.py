import torch
import torch.nn.functional as F

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.pad(torch.cumsum(x, dim=0), (1, 0))[:-1]


task = Task(
    source="kernel.py",
    kernel="exclusive_cumsum_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "BLOCK": 64},
    symbols=["n"],
    constraints=["n <= 64"],
    instances=[{"n": 3}, {"n": 64}],
    grid=[1],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
