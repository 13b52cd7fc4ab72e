# ruff: noqa: N803, PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Matrix multiplication, division by a constant, and a sum over the columns."""

    def __init__(self, divisor: float):
        super(Model, self).__init__()
        self.divisor = divisor

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        x = torch.matmul(A, B)
        x = x / self.divisor
        return torch.sum(x, dim=1, keepdim=True)


batch_size = 128
in_features = 256
out_features = 512
divisor = 2.0


def get_inputs():
    return [torch.randn(batch_size, in_features), torch.randn(in_features, out_features)]


def get_init_inputs():
    return [divisor]
