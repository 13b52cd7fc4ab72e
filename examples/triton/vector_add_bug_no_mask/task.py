import torch

from larkc import Task


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y


task = Task(
    expected_failure="oob",
    source="kernel.py",
    kernel="add_kernel",
    reference=reference,
    inputs={"x": "f32[n]", "y": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "out_ptr": "out", "n_elements": "n", "BLOCK": 256},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1000}],
    grid=["cdiv(n, 256)"],
    block=[1],
)
