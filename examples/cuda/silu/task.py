"""SiLU under ``#ifdef USE_FAST_MATH`` (the task turns the fast exponential on), 64-bit indices."""

import torch
from torch.nn.functional import silu

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return silu(x)


task = Task(
    name="silu",
    source="kernel.cu",
    kernel="silu",
    defines={"USE_FAST_MATH": "1"},
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 257}, {"n": 3000}],
    grid=["cdiv(n, 256)"],
    block=[256],
)
