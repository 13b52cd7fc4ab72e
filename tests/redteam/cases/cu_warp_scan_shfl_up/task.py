import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=1)


task = Task(
    source="kernel.cu",
    kernel="warp_scan_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"y": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 32", "rows <= 4096"],
    instances=[{"rows": 2, "d": 5}],
    grid=["rows"],
    block=[32],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
