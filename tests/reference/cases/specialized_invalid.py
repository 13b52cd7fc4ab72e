# ERROR: 7:1: error: the reference fixes the symbolic size n (dim 0 of input 'x') at its example value 16
"""A Python loop over a symbolic dim unrolls at the example size."""

import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    total = torch.zeros_like(x[0])
    for row in x:
        total = total + row
    return total


inputs = {"x": "f32[n, d]"}
symbols = ["n", "d"]
