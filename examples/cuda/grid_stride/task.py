"""A grid-stride loop launched with a fixed grid of 4 blocks of 128 threads, whatever n is."""

import torch

from larkc import ScalarArg, Task

LO, HI = -0.5, 0.75


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x, LO, HI)


task = Task(
    name="grid_stride",
    source="kernel.cu",
    kernel="clamp_grid_stride",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"lo": ScalarArg(LO), "hi": ScalarArg(HI)},
    symbols=["n"],
    instances=[{"n": 1}, {"n": 511}, {"n": 513}, {"n": 3001}],
    grid=[4],
    block=[128],
)
