"""Row sums with a shared-memory tree reduction (non-type template parameter BLOCK)."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    name="row_sum_shared",
    source="kernel.cu",
    kernel="row_sum_shared",
    template_args={"BLOCK": 256},
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 2147483647"],
    instances=[{"rows": 1, "d": 1}, {"rows": 3, "d": 255}, {"rows": 8, "d": 700}, {"rows": 2, "d": 1024}],
    grid=["rows"],
    block=[256],
)
