"""GELU (tanh approximation): object- and function-like macros and a device function."""

import torch
from torch.nn.functional import gelu

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return gelu(x, approximate="tanh")


task = Task(
    name="gelu_tanh",
    source="kernel.cu",
    kernel="gelu_tanh",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 300}, {"n": 4097}],
    grid=["cdiv(n, 256)"],
    block=[256],
)
