import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return 2 * x


task = Task(
    source="kernel.cu",
    kernel="double_rows_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"y": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "d": 6}, {"rows": 1, "d": 64}],
    grid=["rows"],
    block=[32],
)
