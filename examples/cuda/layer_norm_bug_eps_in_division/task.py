"""Seeded bug: LayerNorm computing rsqrt(var_sum / (d + eps)) instead of rsqrt(var_sum / d + eps); on
random inputs it passes float32 tolerance, on near-constant rows it is wrong by orders of magnitude."""

import torch
from torch import nn
from torch.nn.functional import layer_norm

from larkc import ScalarArg, Task

EPS = 1e-5


class LayerNorm(nn.Module):
    def __init__(self, eps: float) -> None:
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return layer_norm(x, (x.shape[-1],), weight, bias, self.eps)


task = Task(
    name="layer_norm_bug_eps_in_division",
    source="kernel.cu",
    kernel="layer_norm",
    reference=LayerNorm,
    init_inputs=[EPS],
    inputs={"x": "f32[rows, d]", "weight": "f32[d]", "bias": "f32[d]"},
    outputs={"out": "f32[rows, d]"},
    bindings={"eps": ScalarArg(EPS)},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 2147483647"],
    instances=[{"rows": 1, "d": 100}, {"rows": 4, "d": 100}, {"rows": 2, "d": 768}],
    grid=["rows"],
    block=[256],
    expected_failure="mismatch",
)
