# ruff: noqa  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer, a per-feature scale, then a per-feature bias."""

    def __init__(self, in_features, out_features, bias_shape):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(bias_shape))
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        x = self.linear(x)
        return x * self.scale + self.bias


batch_size = 64
in_features = 256
out_features = 256
bias_shape = (out_features,)


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, bias_shape]
