import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.max(dim=-1).values


task = Task(
    source="kernel.cu",
    kernel="rowmax_kernel",
    reference=reference,
    inputs={"x": "f32[rows, cols]"},
    outputs={"y": "f32[rows]"},
    symbols=["rows", "cols"],
    constraints=["cols <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "cols": 3}, {"rows": 1, "cols": 40}],
    grid=["rows"],
    block=[32],
)
