"""The scaled SiLU kernel of activation.cu, whose headers come from the include directories."""

import torch
from torch.nn.functional import silu

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return silu(x) * 2.0


task = Task(
    name="scaled_silu",
    source="activation.cu",
    kernel="scaled_silu_kernel",
    include_dirs=["../first", "../second"],
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 300}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
