import torch

from larkc import Task


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * w


task = Task(
    source="kernel.cu",
    kernel="scale_rows_vec4_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]", "w": "f32[d]"},
    outputs={"y": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 8192", "rows <= 8192"],
    instances=[{"rows": 3, "d": 8}, {"rows": 2, "d": 4}],
    grid=["rows"],
    block=[64],
)
