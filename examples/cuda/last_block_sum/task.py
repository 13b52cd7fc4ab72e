"""Sum in one launch: the block that takes the last ticket adds up every block's partial sum, ordered
after their writes by __threadfence() before the ticket (release) and after it (acquire)."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    name="last_block_sum",
    source="kernel.cu",
    kernel="last_block_sum",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[1]"},
    scratch={"partials": (("min(cdiv(n, 128), 8)",), "f32"), "count": (("1",), "u32", "zeros")},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 300}, {"n": 2049}, {"n": 5000}],
    grid=["min(cdiv(n, 128), 8)"],
    block=[128],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
