# ruff: noqa  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Two linear layers of one shape with a ReLU between them."""

    def __init__(self, hidden):
        super(Model, self).__init__()
        self.fc1 = nn.Linear(hidden, hidden)
        self.fc2 = nn.Linear(hidden, hidden)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


batch_size = 32
hidden = 128


def get_inputs():
    return [torch.randn(batch_size, hidden)]


def get_init_inputs():
    return [hidden]
