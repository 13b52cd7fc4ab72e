import torch

from larkc import Task


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


task = Task(
    source="kernel.py",
    kernel="rms_norm_fwd",
    reference=reference,
    inputs={"x": "f32[rows, d]", "w": "f32[d]"},
    outputs={"y": "f32[rows, d]"},
    bindings={
        "x_ptr": "x",
        "w_ptr": "w",
        "y_ptr": "y",
        "row_stride": "d",
        "n_cols": "d",
        "eps": 1e-6,
        "BLOCK_SIZE": "next_pow2(d)",
    },
    symbols=["rows", "d"],
    constraints=["d <= 8192", "rows <= 4096"],
    instances=[{"rows": 2, "d": 8}, {"rows": 1, "d": 5}],
    grid=["rows"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
