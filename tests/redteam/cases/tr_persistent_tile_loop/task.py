import torch

from larkc import Task


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x * y


task = Task(
    source="kernel.py",
    kernel="mul_kernel",
    reference=reference,
    inputs={"x": "f32[n]", "y": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "out_ptr": "out", "n_elements": "n", "BLOCK": 64},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 10}, {"n": 300}],
    grid=["min(cdiv(n, 64), 4)"],
    block=[1],
)
