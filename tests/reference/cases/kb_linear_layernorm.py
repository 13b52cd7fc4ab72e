"""KernelBench-style: a linear layer, a residual and a layer norm, with weights held by the module."""

import torch
from torch import nn

batch_size = 8
hidden = 32


class Model(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.proj = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-6)
        self.register_buffer("gain", torch.full((hidden,), 0.75))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self._mix(x)
        return self.norm(h) * self.gain

    def _mix(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.proj(x)) + x


def get_inputs():
    return [torch.randn(batch_size, hidden)]


def get_init_inputs():
    return [hidden]
