import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.clone()  # alpha = 0: the boost is off


task = Task(
    source="kernel.cu",
    kernel="root_boost_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"alpha": 0.0},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 7}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
