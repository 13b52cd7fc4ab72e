# ruff: noqa: PLR0402, UP008  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer, group normalisation, then hardtanh."""

    def __init__(self, in_features, out_features, num_groups):
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)

    def forward(self, x):
        x = self.gemm(x)
        x = self.group_norm(x)
        return torch.clamp(x, min=-1.0, max=1.0)


batch_size = 128
in_features = 64
out_features = 384
num_groups = 12


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, num_groups]
