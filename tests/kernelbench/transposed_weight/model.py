# ruff: noqa: PLR0402, UP008  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """A 1-D transposed convolution without bias."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super(Model, self).__init__()
        self.conv_transpose1d = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, bias=False)

    def forward(self, x):
        return self.conv_transpose1d(x)


batch_size = 8
in_channels = 16
out_channels = 24
length = 64
kernel_size = 3


def get_inputs():
    return [torch.randn(batch_size, in_channels, length)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
