import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_sum_exact_block_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 1024", "rows <= 4096"],
    instances=[{"rows": 2, "d": 32}, {"rows": 1, "d": 64}],
    grid=["rows"],
    block=["d"],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
