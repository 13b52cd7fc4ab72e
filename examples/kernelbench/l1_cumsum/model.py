# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """A simple model that performs a cumulative sum (prefix sum) along a specified dimension."""

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=self.dim)


batch_size = 128
input_shape = 4000


def get_inputs():
    return [torch.randn(batch_size, input_shape)]


def get_init_inputs():
    return [1]
