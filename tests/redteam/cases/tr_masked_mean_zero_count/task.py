import torch

from larkc import Task


def reference(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    w = m.to(x.dtype)
    return (x * w).sum(-1) / w.sum(-1).clamp(min=1.0)


task = Task(
    source="kernel.py",
    kernel="masked_mean_kernel",
    reference=reference,
    inputs={"x": "f32[rows, L]", "m": "bool[rows, L]"},
    outputs={"out": "f32[rows]"},
    bindings={"x_ptr": "x", "m_ptr": "m", "out_ptr": "out", "BLOCK": 8},
    symbols=["rows", "L"],
    constraints=["L <= 8", "rows <= 4096"],
    instances=[{"rows": 2, "L": 3}],
    grid=["rows"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
