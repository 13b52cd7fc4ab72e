import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    source="kernel.cu",
    kernel="sum_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[1]"},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 7}, {"n": 256}],
    grid=["cdiv(n, 256)"],
    block=[256],
    tolerance={"rtol": 1e-4, "atol": 1e-3},
)
