"""A scale the host computes from a size: scale = 1 / sqrt(d) (exact at d = 16 and 64, irrational at 32)."""

import torch

from larkc.tasks import ScalarExpr, Task


def reference(x: torch.Tensor) -> torch.Tensor:
    # 1 / sqrt(d), with d counted by a sum so that the traced reference stays generic in d
    return x * torch.rsqrt(torch.ones_like(x).sum(dim=-1, keepdim=True))


task = Task(
    name="scale_by_rsqrt_d",
    source="kernel.cu",
    kernel="scale_rows",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows, d]"},
    bindings={"scale": ScalarExpr("1 / sqrt(d)"), "n": "rows * d"},
    symbols=["rows", "d"],
    constraints=["rows * d <= 16777216"],
    instances=[{"rows": 3, "d": 16}, {"rows": 2, "d": 32}, {"rows": 5, "d": 64}],
    grid=["cdiv(rows * d, 256)"],
    block=[256],
)
