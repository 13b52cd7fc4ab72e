import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


task = Task(
    source="kernel.py",
    kernel="softmax_kernel",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    outputs={"y": "f32[r, d]"},
    bindings={
        "out_ptr": "y",
        "in_ptr": "x",
        "in_row_stride": "d",
        "out_row_stride": "d",
        "n_rows": "r",
        "n_cols": "d",
        "BLOCK": "next_pow2(d)",
    },
    symbols=["r", "d"],
    constraints=["d <= 4096", "r <= 65536"],
    instances=[{"r": 3, "d": 50}, {"r": 4, "d": 64}, {"r": 2, "d": 129}],
    grid=["min(r, 4)"],  # fewer programs than rows: each takes every fourth row
    block=[1],
)
