"""KernelBench-style reference for the tiled matmul: ``Model``, ``get_inputs``, ``get_init_inputs``."""

import torch
from torch import nn

M = 64
K = 48
N = 40


class Model(nn.Module):
    """Single matrix multiplication, c = a @ b."""

    def __init__(self) -> None:
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs() -> list[torch.Tensor]:
    a = torch.randn(M, K)
    b = torch.randn(K, N)
    return [a, b]


def get_init_inputs() -> list[object]:
    return []
