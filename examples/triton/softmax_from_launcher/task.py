"""A task taken from the launcher: larkc calls softmax() in ../softmax/kernel.py on random tensors of each
instance with the kernel launch intercepted, and derives the bindings and the grid from what it passes."""

import torch

from larkc.frontends.triton.launcher import task_from_launcher


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


task = task_from_launcher(
    "../softmax/kernel.py:softmax",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    symbols=["r", "d"],
    constraints=["d <= 4096", "r <= 65536"],
    instances=[{"r": 3, "d": 50}, {"r": 5, "d": 100}, {"r": 2, "d": 129}, {"r": 4, "d": 64}],
)
