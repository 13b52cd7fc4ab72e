import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=-1)


task = Task(
    source="kernel.py",
    kernel="row_cumsum_kernel",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    outputs={"y": "f32[r, d]"},
    bindings={"x_ptr": "x", "out_ptr": "y", "stride": "d", "n_cols": "d", "BLOCK": "next_pow2(d)"},
    symbols=["r", "d"],
    constraints=["d <= 4096", "r <= 65536"],
    instances=[{"r": 4, "d": 50}, {"r": 2, "d": 64}, {"r": 3, "d": 1}],
    grid=["r"],
    block=[1],
)
