"""conv2d left to PyTorch, then a fused ReLU kernel that forgets the bias (seeded bug: mismatch)."""

import torch
import torch.nn.functional as F

from larkc.tasks import KernelLaunch, Task, TorchStep


def reference(x, conv_weight, bias):
    return torch.relu(F.conv2d(x, conv_weight, padding=1) + bias.view(1, -1, 1, 1))


def _step0(x, conv_weight):
    return F.conv2d(x, conv_weight, padding=1)


task = Task(
    source="fused.cu",
    launches=(
        TorchStep(function=_step0, inputs=("x", "conv_weight"), outputs=("t0",), label="self.conv(x)"),
        KernelLaunch(
            kernel="relu_no_bias_kernel",
            grid=["cdiv(c * h * w, 64)"],
            block=[64],
            bindings={"t": "t0", "total": "c * h * w", "channels": "c", "hw": "h * w"},
        ),
    ),
    reference=reference,
    inputs={"x": "f32[1, 2, h, w]", "conv_weight": "f32[c, 2, 3, 3]", "bias": "f32[c]"},
    outputs={"out": "f32[1, c, h, w]"},
    scratch={"t0": "f32[1, c, h, w]"},
    symbols=["c", "h", "w"],
    constraints=["c <= 64", "h <= 64", "w <= 64"],
    instances=[{"c": 2, "h": 3, "w": 3}],
    expected_failure="mismatch",
)
