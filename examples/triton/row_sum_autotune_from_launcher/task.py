"""A task taken from the launcher of an autotuned kernel: larkc calls row_sum() in ../row_sum_autotune/kernel.py
with the launch intercepted; BLOCK_N (each autotune configuration) and EVEN_N (the heuristic) need no
binding, and the grid is the same for every configuration."""

import torch

from larkc.frontends.triton.launcher import task_from_launcher


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=-1)


task = task_from_launcher(
    "../row_sum_autotune/kernel.py:row_sum",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    symbols=["r", "d"],
    constraints=["d <= 4096", "r <= 65536"],
    instances=[{"r": 3, "d": 48}, {"r": 5, "d": 100}, {"r": 2, "d": 64}, {"r": 4, "d": 37}],
)
