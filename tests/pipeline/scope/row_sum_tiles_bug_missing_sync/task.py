"""Row sums through shared-memory tiles, racing only on rows longer than one tile (k > 128): every
instance has k <= 128, so only a claim for all sizes can see the race."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    name="row_sum_tiles_bug_missing_sync",
    source="kernel.cu",
    kernel="row_sum_tiles",
    reference=reference,
    inputs={"x": "f32[r, k]"},
    outputs={"out": "f32[r]"},
    symbols=["r", "k"],
    constraints=["r <= 4096", "k <= 8192"],
    instances=[{"r": 2, "k": 100}, {"r": 3, "k": 128}],
    grid=["r"],
    block=[128],
    expected_failure="race",
)
