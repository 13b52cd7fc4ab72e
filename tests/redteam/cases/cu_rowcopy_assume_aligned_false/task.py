import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.relu(x)


task = Task(
    source="kernel.cu",
    kernel="relu_rows_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"y": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "d": 8}, {"rows": 3, "d": 100}],
    grid=["rows"],
    block=[64],
)
