import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="row_sum_kernel",
    template_args={"BLOCK": 256},
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 8192", "rows <= 4096"],
    instances=[{"rows": 2, "d": 256}, {"rows": 1, "d": 300}],
    grid=["rows"],
    block=["min(256, next_pow2(d))"],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
