# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds a per-feature bias, applies ReLU and scales."""

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + bias) * self.scale


batch_size = 64
features = 2048
scale = 1.5


def get_inputs():
    return [torch.randn(batch_size, features), torch.randn(features)]


def get_init_inputs():
    return [scale]
