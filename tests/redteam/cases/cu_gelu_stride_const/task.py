import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(1.702 * x)


task = Task(
    source="kernel.cu",
    kernel="quick_gelu_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 1}, {"n": 500}],
    grid=["min(cdiv(n, 256), 2)"],
    block=[256],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
