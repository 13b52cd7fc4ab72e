"""Seeded bug: float4 vector addition without a scalar tail; n % 4 != 0 reads and writes past the end."""

import torch

from larkc import Task


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y


task = Task(
    name="vector_add_float4_bug_no_tail",
    source="kernel.cu",
    kernel="vector_add_float4",
    reference=reference,
    inputs={"x": "f32[n]", "y": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 4}, {"n": 1027}, {"n": 4096}, {"n": 4102}],
    grid=["cdiv(cdiv(n, 4), 256)"],
    block=[256],
    expected_failure="oob",
)
