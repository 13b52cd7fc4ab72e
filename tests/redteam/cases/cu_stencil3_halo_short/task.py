import torch
import torch.nn.functional as F

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    p = F.pad(x, (1, 1))
    return p[:-2] + p[1:-1] + p[2:]


task = Task(
    source="kernel.cu",
    kernel="box3_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}, {"n": 300}],
    grid=["cdiv(n, 128)"],
    block=[128],
    tolerance={"rtol": 1e-5, "atol": 1e-5},
)
