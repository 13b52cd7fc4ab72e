# ERROR: 9:5: error: data-dependent control flow in reference: if x.sum() > 0:
"""Python control flow on tensor values cannot be traced into a spec."""

import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    y = x * 2
    if x.sum() > 0:
        return y
    return -y


inputs = {"x": "f32[n]"}
symbols = ["n"]
