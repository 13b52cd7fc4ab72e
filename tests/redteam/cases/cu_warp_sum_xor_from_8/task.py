import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_sum32_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 32", "rows <= 4096"],
    instances=[{"rows": 2, "d": 16}, {"rows": 1, "d": 3}],
    grid=["rows"],
    block=[32],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
