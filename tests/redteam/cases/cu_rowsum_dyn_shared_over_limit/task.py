import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_sum_smem_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 1024"],
    instances=[{"rows": 2, "d": 5}, {"rows": 1, "d": 40}],
    grid=["rows"],
    block=[32],
    shared_bytes="4 * d",
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
