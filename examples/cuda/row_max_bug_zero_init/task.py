"""Seeded bug: a row maximum whose accumulator starts at 0.0f, wrong exactly on rows of negative values."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.amax(dim=-1)


task = Task(
    name="row_max_bug_zero_init",
    source="kernel.cu",
    kernel="row_max",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 2147483647"],
    instances=[{"rows": 1, "d": 1}, {"rows": 4, "d": 100}, {"rows": 3, "d": 1000}],
    grid=["rows"],
    block=["32 * min(cdiv(d, 32), 8)"],
    expected_failure="mismatch",
)
