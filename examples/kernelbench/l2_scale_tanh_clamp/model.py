# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales the input, applies tanh, then clamps the result."""

    def __init__(self, scale: float, clamp_max: float):
        super(Model, self).__init__()
        self.scale = scale
        self.clamp_max = clamp_max

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * self.scale
        x = torch.tanh(x)
        return torch.clamp(x, min=-self.clamp_max, max=self.clamp_max)


batch_size = 128
features = 4096
scale = 2.0
clamp_max = 0.5


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [scale, clamp_max]
