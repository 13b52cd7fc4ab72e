import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=1)


task = Task(
    source="kernel.py",
    kernel="softmax_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"y": "f32[rows, d]"},
    bindings={
        "output_ptr": "y",
        "input_ptr": "x",
        "input_row_stride": "d",
        "output_row_stride": "d",
        "n_cols": "d",
        "BLOCK_SIZE": "next_pow2(d)",
    },
    symbols=["rows", "d"],
    constraints=["d <= 1024", "rows <= 4096"],
    instances=[{"rows": 2, "d": 8}, {"rows": 3, "d": 32}],
    grid=["rows"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-6},
)
