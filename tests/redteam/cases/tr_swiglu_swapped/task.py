import torch
import torch.nn.functional as F

from larkc import Task


def reference(gu: torch.Tensor) -> torch.Tensor:
    gate, up = gu.chunk(2, dim=-1)
    return F.silu(gate) * up


task = Task(
    source="kernel.py",
    kernel="swiglu_fwd_kernel",
    reference=reference,
    inputs={"gu": "f32[rows, 2 * d]"},
    outputs={"out": "f32[rows, d]"},
    bindings={"gu_ptr": "gu", "out_ptr": "out", "n_cols": "d", "BLOCK": 64},
    symbols=["rows", "d"],
    constraints=["d <= 8192", "rows <= 4096"],
    instances=[{"rows": 2, "d": 5}],
    grid=["rows", "cdiv(d, 64)"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
