import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.t().contiguous()


task = Task(
    source="kernel.py",
    kernel="transpose_kernel",
    reference=reference,
    inputs={"x": "f32[m, n]"},
    outputs={"out": "f32[n, m]"},
    bindings={"x_ptr": "x", "out_ptr": "out", "M": "m", "N": "n", "BLOCK": 32},
    symbols=["m", "n"],
    constraints=["m <= 4096", "n <= 4096"],
    instances=[{"m": 5, "n": 5}, {"m": 40, "n": 40}],
    grid=["cdiv(m, 32)", "cdiv(n, 32)"],
    block=[1],
)
