"""A forward that is all PyTorch: no kernel of the candidate's own (not a kernel)."""

import torch
import torch.nn.functional as F

from larkc.tasks import Task, TorchStep


def reference(x, conv_weight, conv_bias):
    return torch.relu(F.conv2d(x, conv_weight, conv_bias, padding=1))


def _step0(x, conv_weight, conv_bias):
    return F.conv2d(x, conv_weight, conv_bias, padding=1)


def _step1(t):
    return torch.relu(t)


task = Task(
    source="fused.cu",
    launches=(
        TorchStep(function=_step0, inputs=("x", "conv_weight", "conv_bias"), outputs=("t0",), label="self.conv(x)"),
        TorchStep(function=_step1, inputs=("t0",), outputs=("out",), label="torch.relu(x)"),
    ),
    reference=reference,
    inputs={"x": "f32[1, 2, h, w]", "conv_weight": "f32[c, 2, 3, 3]", "conv_bias": "f32[c]"},
    outputs={"out": "f32[1, c, h, w]"},
    scratch={"t0": "f32[1, c, h, w]"},
    symbols=["c", "h", "w"],
    instances=[{"c": 2, "h": 3, "w": 3}],
    expected_failure="not-a-kernel",
)
