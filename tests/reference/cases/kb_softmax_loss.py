"""KernelBench-style: log-softmax statistics and a cross-entropy loss over integer class targets."""

import torch
import torch.nn.functional as F  # noqa: N812 - torch's conventional alias
from torch import nn

batch_size = 12
num_classes = 10


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        probs = torch.softmax(logits, dim=1)
        loss = F.cross_entropy(logits, targets)
        return probs.amax(dim=1), loss


def get_inputs():
    return [torch.randn(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
