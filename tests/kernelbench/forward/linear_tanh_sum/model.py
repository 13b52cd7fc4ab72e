# ruff: noqa: PLR0402
import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer, tanh, then the sum of each row."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = self.linear(x)
        x = torch.tanh(x)
        return torch.sum(x, dim=1, keepdim=True)


batch_size = 16
in_features = 32
out_features = 24


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
