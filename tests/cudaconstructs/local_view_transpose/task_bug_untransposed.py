"""Seeded bug: LeetCUDA-style f32x4 shared-memory transpose reading the tile back untransposed."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.t().contiguous()


task = Task(
    source="kernel.cu",
    kernel="mat_transpose_f32x4_shared_bug_kernel",
    reference=reference,
    expected_failure="mismatch",
    inputs={"x": "f32[row, col]"},
    outputs={"y": "f32[col, row]"},
    symbols=["row", "col"],
    constraints=["row % 16 == 0", "col % 16 == 0", "row <= 4096", "col <= 4096"],
    instances=[{"row": 16, "col": 16}, {"row": 32, "col": 48}],
    grid=["col // 16", "row // 16"],
    block=[4, 16],
)
