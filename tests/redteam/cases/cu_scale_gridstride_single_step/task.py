import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return 2.5 * x


task = Task(
    source="kernel.cu",
    kernel="scale_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"alpha": 2.5},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 7}, {"n": 300}],
    grid=["min(cdiv(n, 128), 4)"],
    block=[128],
)
