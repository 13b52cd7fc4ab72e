"""A task taken from add() in ../vector_add/kernel.py, whose grid is a function of the block size."""

import torch

from larkc.frontends.triton.launcher import task_from_launcher


def reference(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x + y


task = task_from_launcher(
    "../vector_add/kernel.py:add",
    reference=reference,
    inputs={"x": "f32[n]", "y": "f32[n]"},
    symbols=["n"],
    # from n = 2^31 Triton passes n as i64 (another specialisation) and the tutorial's i32 `pid * BLOCK`
    # overflows: offsets wrap negative, pass the mask and are read (pid.to(tl.int64) would fix it)
    constraints=["n <= 2147483647"],
    instances=[{"n": 1000}, {"n": 5000}, {"n": 1024}],
)
