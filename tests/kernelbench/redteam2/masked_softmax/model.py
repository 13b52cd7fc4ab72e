# ruff: noqa  (written as KernelBench problems are)
import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over the last dimension of scores with masked entries set to -inf."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, scores, mask):
        return torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)


batch_size = 64
seq_len = 512


def get_inputs():
    scores = torch.randn(batch_size, seq_len)
    mask = torch.randint(0, 2, (batch_size, seq_len)).bool()
    return [scores, mask]


def get_init_inputs():
    return []
