# ruff: noqa: PLR0402
import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU, then scaled by a constant."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return torch.relu(x) * self.scale


batch_size = 64
dim = 1000
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [scale]
