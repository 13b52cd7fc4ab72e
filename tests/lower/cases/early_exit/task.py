"""An early return before a barrier (tests/lower: phase form, Lean lowering)."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return 2.0 * x


task = Task(
    name="early_exit",
    source="kernel.cu",
    kernel="early_exit",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 1}, {"n": 300}, {"n": 512}],
    grid=["cdiv(n, 256)"],
    block=[256],
)
