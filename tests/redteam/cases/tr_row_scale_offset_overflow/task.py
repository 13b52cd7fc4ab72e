import torch

from larkc import Task


def reference(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    return x * s[:, None]


task = Task(
    source="kernel.py",
    kernel="row_scale_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]", "s": "f32[rows]"},
    outputs={"y": "f32[rows, d]"},
    bindings={"x_ptr": "x", "s_ptr": "s", "y_ptr": "y", "n_cols": "d", "BLOCK_SIZE": 1024},
    symbols=["rows", "d"],
    constraints=["d <= 1024", "rows <= 4194304"],
    instances=[{"rows": 3, "d": 100}],
    grid=["rows"],
    block=[1],
)
