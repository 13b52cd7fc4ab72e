import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x > 0).sum().to(torch.int32).reshape(1)


task = Task(
    source="kernel.cu",
    kernel="count_positive_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"count": (("1",), "i32", "zeros")},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}, {"n": 700}],
    grid=["cdiv(n, 256)"],
    block=[256],
)
