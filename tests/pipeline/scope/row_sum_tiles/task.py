"""Row sums through shared-memory tiles, two barriers per tile: correct for every k. The parametric prover
cannot tell the tile loop's iterations apart (it may exit early), so race freedom is bounded."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    name="row_sum_tiles",
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
)
