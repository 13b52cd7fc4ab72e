"""Hillis-Steele inclusive scan with a double-buffered 2-D shared array; rows are one block long."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=1)


task = Task(
    name="block_scan",
    source="kernel.cu",
    kernel="block_scan",
    template_args={"BLOCK": 128},
    reference=reference,
    inputs={"x": "f32[rows, 128]"},
    outputs={"out": "f32[rows, 128]"},
    symbols=["rows"],
    instances=[{"rows": 1}, {"rows": 5}, {"rows": 32}],
    grid=["rows"],
    block=[128],
)
