# ruff: noqa: N803, PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix multiplication, scaling, bias addition and ReLU."""

    def __init__(self, scale: float, bias: float):
        super(Model, self).__init__()
        self.scale = scale
        self.bias = bias

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        x = torch.matmul(A, B)
        x = x * self.scale
        x = x + self.bias
        return torch.relu(x)


M = 512
K = 256
N = 512
scale = 0.5
bias = 0.1


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return [scale, bias]
