"""Absolute maximum through ``atomicMax`` on the integer view of non-negative floats."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.abs().amax().reshape(1)


task = Task(
    name="abs_max",
    source="kernel.cu",
    kernel="abs_max",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": (("1",), "f32", "zeros")},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 100}, {"n": 4097}],
    grid=["min(cdiv(n, 256), 16)"],
    block=[256],
)
