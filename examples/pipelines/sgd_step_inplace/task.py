"""An SGD step with momentum updating two tensors in place; the reference returns their new values."""

import torch

from larkc import Task


def reference(w: torch.Tensor, v: torch.Tensor, g: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    new_v = 0.9 * v + g
    return w - 0.125 * new_v, new_v


task = Task(
    name="sgd_step_inplace",
    source="kernel.cu",
    kernel="sgd_momentum_step",
    reference=reference,
    inputs={"w": "f32[n]", "v": "f32[n]", "g": "f32[n]"},
    outputs={"w": "f32[n]", "v": "f32[n]"},
    bindings={"lr": 0.125, "mu": 0.9},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 777}, {"n": 4099}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
