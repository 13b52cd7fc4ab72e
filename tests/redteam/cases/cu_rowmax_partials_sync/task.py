import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.amax(dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_max_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 16384", "rows <= 1024"],
    instances=[{"rows": 2, "d": 3}, {"rows": 1, "d": 100}],
    grid=["rows"],
    block=["32 * min(cdiv(d, 32), 8)"],
)
