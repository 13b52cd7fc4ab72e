# ruff: noqa: PLR0402, UP008  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer without bias, then ReLU."""

    def __init__(self, in_features, out_features, bias=False):
        super(Model, self).__init__()
        self.fc = nn.Linear(in_features, out_features, bias=bias)

    def forward(self, x):
        return torch.relu(self.fc(x))


batch_size = 64
in_features = 96
out_features = 80


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
