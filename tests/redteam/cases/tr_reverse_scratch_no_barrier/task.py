import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.flip(x, dims=[-1])


task = Task(
    source="kernel.py",
    kernel="flip_rows_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"y": "f32[rows, d]"},
    scratch={"scratch": "f32[rows, 64]"},
    bindings={"x_ptr": "x", "scratch_ptr": "scratch", "y_ptr": "y", "n_cols": "d", "BLOCK": 64},
    symbols=["rows", "d"],
    constraints=["d <= 64", "rows <= 4096"],
    instances=[{"rows": 2, "d": 5}],
    grid=["rows"],
    block=[1],
)
