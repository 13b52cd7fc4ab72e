import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="short_row_sum_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 32", "rows <= 4096"],
    instances=[{"rows": 3, "d": 32}, {"rows": 2, "d": 7}],
    grid=["rows"],
    block=[32],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
