# ERROR: 8:5: error: reference raised IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 5)
"""A reference that does not run on its declared inputs."""

import torch


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, x], dim=5)


inputs = {"x": "f32[n, d]"}
symbols = ["n", "d"]
