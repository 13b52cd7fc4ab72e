"""Row sums through shared-memory tiles in a do-while loop: correct for every k. The parametric prover
havocs the loop's column offset, so its models of an out-of-bounds read or an overflowing offset may not
be realisable."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=1)


task = Task(
    name="row_sum_tiles_do_while",
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
