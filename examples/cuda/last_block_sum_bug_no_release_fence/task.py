"""Seeded bug: the last-block sum without the __threadfence() between a block's partial and its ticket:
nothing orders the partials' writes before the last block's reads (a race by the PTX memory model)."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    name="last_block_sum_bug_no_release_fence",
    source="kernel.cu",
    kernel="last_block_sum",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[1]"},
    scratch={"partials": (("min(cdiv(n, 128), 8)",), "f32"), "count": (("1",), "u32", "zeros")},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 300}, {"n": 2049}, {"n": 5000}],
    grid=["min(cdiv(n, 128), 8)"],
    block=[128],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
    expected_failure="race",
)
