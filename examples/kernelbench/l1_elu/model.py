# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Simple model that performs an ELU activation."""

    def __init__(self, alpha: float = 1.0):
        super(Model, self).__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.elu(x, alpha=self.alpha)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [1.0]
