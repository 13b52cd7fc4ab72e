import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x >= 1, torch.sqrt(x - 1), x)


task = Task(
    source="kernel.py",
    kernel="hinge_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "n_elements": "n", "BLOCK_SIZE": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 9}],
    grid=["cdiv(n, 128)"],
    block=[1],
)
