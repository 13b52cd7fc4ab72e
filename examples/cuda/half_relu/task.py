"""ReLU on half precision with half2 vector loads and an odd tail element."""

import torch
from torch.nn.functional import relu

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return relu(x)


task = Task(
    name="half_relu",
    source="kernel.cu",
    kernel="half_relu",
    reference=reference,
    inputs={"x": "f16[n]"},
    outputs={"out": "f16[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 2}, {"n": 999}, {"n": 4096}],
    grid=["cdiv(cdiv(n, 2), 256)"],
    block=[256],
)
