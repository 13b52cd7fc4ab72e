"""y += alpha * x in place: y is both an input and an output; the reference updates its argument."""

import torch

from larkc import Task


def reference(x: torch.Tensor, y: torch.Tensor) -> None:
    y.add_(0.5 * x)  # in place, like the kernel: the new y is what the reference leaves in its argument


task = Task(
    name="axpy_inplace",
    source="kernel.cu",
    kernel="axpy_inplace",
    reference=reference,
    inputs={"x": "f32[n]", "y": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"alpha": 0.5},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 1000}, {"n": 4099}],
    grid=["cdiv(n, 256)"],
    block=[256],
)
