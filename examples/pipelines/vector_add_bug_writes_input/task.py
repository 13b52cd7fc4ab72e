"""Seeded bug: a vector addition that overwrites its input x (not declared in-place)."""

import torch

from larkc import Task


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y


task = Task(
    name="vector_add_bug_writes_input",
    source="kernel.cu",
    kernel="vector_add_clobber",
    reference=reference,
    inputs={"x": "f32[n]", "y": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 1000}, {"n": 4099}],
    grid=["cdiv(n, 256)"],
    block=[256],
    expected_failure="input-write",
)
