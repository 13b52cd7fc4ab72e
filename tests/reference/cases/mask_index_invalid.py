# ERROR: 8:5: error: data-dependent output shape in reference: return x[x > 0]
"""Boolean-mask indexing: the result's size depends on the values."""

import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0]


inputs = {"x": "f32[n]"}
symbols = ["n"]
