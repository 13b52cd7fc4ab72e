"""Row sums with warp shuffles; the block size follows the row length (1 to 8 full warps)."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=-1)


task = Task(
    name="row_sum_warp",
    source="kernel.cu",
    kernel="row_sum_warp",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 2147483647"],
    instances=[{"rows": 1, "d": 1}, {"rows": 4, "d": 100}, {"rows": 6, "d": 1000}, {"rows": 64, "d": 33}],
    grid=["rows"],
    block=["32 * min(cdiv(d, 32), 8)"],
)
