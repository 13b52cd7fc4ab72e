# ruff: noqa: N803, N806, PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Performs batched matrix multiplication (C = A * B) where A, B, and C have the same batch dimension."""

    def __init__(self):
        super(Model, self).__init__()
        pass

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


batch_size = 128
m = 128
k = 256
n = 512


def get_inputs():
    A = torch.randn(batch_size, m, k)
    B = torch.randn(batch_size, k, n)
    return [A, B]


def get_init_inputs():
    return []
