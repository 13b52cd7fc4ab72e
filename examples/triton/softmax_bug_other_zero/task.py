import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


task = Task(
    expected_failure="mismatch",
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
        "BLOCK": 64,
    },
    symbols=["r", "d"],
    constraints=["d <= 64", "r * d <= 2147483647"],
    instances=[{"r": 3, "d": 50}],
    grid=["r"],
    block=[1],
)
