import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_sum_tree_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 1024", "rows <= 4096"],
    instances=[{"rows": 2, "d": 20}, {"rows": 1, "d": 64}],
    grid=["rows"],
    block=["32 * cdiv(d, 32)"],
    shared_bytes="4 * 32 * cdiv(d, 32)",
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
