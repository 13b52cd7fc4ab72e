import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=-1)


task = Task(
    source="kernel.py",
    kernel="row_sum_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    bindings={"x_ptr": "x", "out_ptr": "out", "n_cols": "d", "BLOCK": "next_pow2(d)"},
    symbols=["rows", "d"],
    constraints=["d <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "d": 8}, {"rows": 1, "d": 32}],
    grid=["rows"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
