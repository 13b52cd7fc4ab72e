import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


task = Task(
    source="kernel.py",
    kernel="log_boost_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "alpha": 0.0, "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 6}],
    grid=["cdiv(n, 128)"],
    block=[1],
)
