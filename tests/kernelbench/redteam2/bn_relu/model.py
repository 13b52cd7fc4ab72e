# ruff: noqa  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Batch normalisation, then ReLU."""

    def __init__(self, num_features):
        super(Model, self).__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        return torch.relu(self.bn(x))


batch_size = 32
num_features = 64


def get_inputs():
    return [torch.randn(batch_size, num_features)]


def get_init_inputs():
    return [num_features]
