import torch

from larkc import Task


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    variance = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(variance + 1e-6))


task = Task(
    source="kernel.py",
    kernel="rmsnorm_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]", "w": "f32[d]"},
    outputs={"y": "f32[rows, d]"},
    bindings={"X": "x", "W": "w", "Y": "y", "n_cols": "d", "eps": 1e-6, "BLOCK_SIZE": "next_pow2(d)"},
    symbols=["rows", "d"],
    constraints=["d <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "d": 4}],
    grid=["rows"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
