"""GELU over 128-bit packets with a packed struct and member functions (llm.c style)."""

import torch
from torch.nn.functional import gelu

from larkc import Task


def reference(inp: torch.Tensor) -> torch.Tensor:
    return gelu(inp, approximate="tanh")


task = Task(
    name="gelu_packed128",
    source="kernel.cu",
    kernel="gelu_packed128",
    reference=reference,
    inputs={"inp": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n % 4 == 0", "n <= 16777216"],
    instances=[{"n": 4}, {"n": 1024}, {"n": 4100}],
    grid=["cdiv(n, 4 * 128)"],
    block=[128],
)
