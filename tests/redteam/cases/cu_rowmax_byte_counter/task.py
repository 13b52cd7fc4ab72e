import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.amax(x, dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_max_kernel",
    reference=reference,
    inputs={"x": "f32[rows, cols]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "cols"],
    constraints=["rows <= 4096", "cols <= 4096"],
    instances=[{"rows": 3, "cols": 6}],
    grid=["cdiv(rows, 64)"],
    block=[64],
)
