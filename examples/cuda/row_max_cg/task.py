"""Row maximum written with cooperative groups (thread block, 32-thread tiles, cg::reduce)."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.amax(dim=-1)


task = Task(
    name="row_max_cg",
    source="kernel.cu",
    kernel="row_max_cg",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 2147483647"],
    instances=[{"rows": 1, "d": 1}, {"rows": 3, "d": 100}, {"rows": 5, "d": 2049}],
    grid=["rows"],
    block=[256],
)
