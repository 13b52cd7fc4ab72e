# ruff: noqa: PLR0402, UP008  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer followed by a ReLU."""

    def __init__(self, in_features, out_features):
        super(Model, self).__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x))


batch_size = 16
in_features = 512
out_features = 1024


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
