import torch
import torch.nn.functional as F

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.silu(x)


task = Task(
    source="kernel.cu",
    kernel="silu_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"in": "x", "out": "y"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 256}, {"n": 768}],
    grid=["cdiv(n, 256)"],
    block=[256],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
