"""LayerNorm with Welford's one-pass variance merged across lanes with Chan's formula."""

import torch
from torch.nn.functional import layer_norm

from larkc import ScalarArg, Task

EPS = 1e-5


def reference(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    return layer_norm(x, (x.shape[-1],), weight, bias, EPS)


task = Task(
    name="layer_norm_welford",
    source="kernel.cu",
    kernel="layer_norm_welford",
    reference=reference,
    inputs={"x": "f32[rows, d]", "weight": "f32[d]", "bias": "f32[d]"},
    outputs={"out": "f32[rows, d]"},
    bindings={"eps": ScalarArg(EPS)},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 2147483647"],
    instances=[{"rows": 1, "d": 1}, {"rows": 3, "d": 50}, {"rows": 2, "d": 300}],
    grid=["rows"],
    block=["32 * min(cdiv(d, 32), 8)"],
)
