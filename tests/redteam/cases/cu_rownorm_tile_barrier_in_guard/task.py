import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x * x).sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_sumsq_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 4096", "rows <= 512"],
    instances=[{"rows": 1, "d": 128}, {"rows": 2, "d": 256}],
    grid=["rows"],
    block=[128],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
