# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over the features, scaled and added back to the input."""

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.scale * torch.softmax(x, dim=-1)


batch_size = 32
features = 8192
scale = 0.25


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [scale]
