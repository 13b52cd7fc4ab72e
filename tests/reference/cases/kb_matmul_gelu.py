"""KernelBench-style: a matrix product followed by GELU and a scale given at construction."""

import torch
from torch import nn

M = 24
K = 16
N = 20


class Model(nn.Module):
    def __init__(self, scale: float) -> None:
        super().__init__()
        self.scale = scale

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        c = torch.matmul(a, b)
        return torch.nn.functional.gelu(c) * self.scale


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return [0.5]
