# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix multiplication, sigmoid, and a sum over the output features."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        y = torch.matmul(x, w)
        y = torch.sigmoid(y)
        return torch.sum(y, dim=1, keepdim=True)


batch_size = 128
input_size = 10
hidden_size = 20


def get_inputs():
    return [torch.randn(batch_size, input_size), torch.randn(input_size, hidden_size)]


def get_init_inputs():
    return []
