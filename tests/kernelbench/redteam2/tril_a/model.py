# ruff: noqa  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B for a lower-triangular A and a full B."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


N = 2048


def get_inputs():
    A = torch.tril(torch.randn(N, N))
    B = torch.randn(N, N)
    return [A, B]


def get_init_inputs():
    return []
