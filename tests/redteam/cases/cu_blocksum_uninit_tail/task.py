import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    source="kernel.cu",
    kernel="total_sum_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": (("1",), "f32", "zeros")},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 256}, {"n": 512}],
    grid=["cdiv(n, 256)"],
    block=[256],
    tolerance={"rtol": 1e-4, "atol": 1e-3},
)
