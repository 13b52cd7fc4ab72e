import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x)


task = Task(
    expected_failure="mismatch",
    source="kernel.cu",
    kernel="relu_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 7}, {"n": 300}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
