import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.relu(x)


task = Task(
    source="kernel.py",
    kernel="relu_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"x_ptr": "x", "y_ptr": "y", "n_elements": "n", "BLOCK_SIZE": 128},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 100}, {"n": 300}],
    grid=["cdiv(n, 128)"],
    block=[1],
)
