import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    source="kernel.cu",
    kernel="reduce6_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": (("1",), "f32", "zeros")},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 100}, {"n": 300}],
    grid=["cdiv(n, 128)"],
    block=[128],
    tolerance={"rtol": 1e-4, "atol": 1e-3},
)
