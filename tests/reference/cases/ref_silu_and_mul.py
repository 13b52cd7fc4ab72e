"""A reference file: the gated activation of LLM serving, over an input twice as wide as the output."""

import torch
import torch.nn.functional as F  # noqa: N812 - torch's conventional alias


def reference(x: torch.Tensor) -> torch.Tensor:
    d = x.shape[-1] // 2
    return F.silu(x[..., :d]) * x[..., d:]


inputs = {"x": "f32[tokens, 2*d]"}
symbols = ["tokens", "d"]
