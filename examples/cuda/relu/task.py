"""ReLU, a type-templated elementwise kernel instantiated for float."""

import torch
from torch.nn.functional import relu

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return relu(x)


task = Task(
    name="relu",
    source="kernel.cu",
    kernel="relu",
    template_args={"T": "float"},
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 3}, {"n": 1023}, {"n": 2500}],
    grid=["cdiv(n, 512)"],
    block=[512],
)
