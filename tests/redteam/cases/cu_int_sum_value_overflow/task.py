import torch

from larkc import Task


def reference(counts: torch.Tensor) -> torch.Tensor:
    return counts.sum(dim=1).to(torch.int32)


task = Task(
    source="kernel.cu",
    kernel="count_sum_kernel",
    reference=reference,
    inputs={"counts": "i32[rows, d] in [0, 1048576)"},
    outputs={"total": "i32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "d": 5}, {"rows": 1, "d": 100}],
    grid=["rows"],
    block=[32],
)
