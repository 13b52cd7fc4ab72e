import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.full_like(x, 0.5)


task = Task(
    source="kernel.cu",
    kernel="fill_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"value": 0.5},
    symbols=["n"],
    constraints=["n <= 8589934592"],
    instances=[{"n": 10}, {"n": 513}],
    grid=["cdiv(n, 512)"],
    block=[512],
)
