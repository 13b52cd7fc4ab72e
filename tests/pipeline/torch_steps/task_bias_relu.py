"""conv2d left to PyTorch, then a fused bias add + ReLU kernel, against Model's conv + bias + relu."""

import torch
import torch.nn.functional as F

from larkc.tasks import KernelLaunch, Task, TorchStep


def reference(x, conv_weight, conv_bias, bias):
    y = F.conv2d(x, conv_weight, conv_bias, padding=1)
    return torch.relu(y + bias.view(1, -1, 1, 1))


def _step0(x, conv_weight, conv_bias):
    return F.conv2d(x, conv_weight, conv_bias, padding=1)


task = Task(
    source="fused.cu",
    launches=(
        TorchStep(function=_step0, inputs=("x", "conv_weight", "conv_bias"), outputs=("t0",), label="self.conv(x)"),
        KernelLaunch(
            kernel="bias_relu_kernel",
            grid=["cdiv(c * h * w, 64)"],
            block=[64],
            bindings={"t": "t0", "total": "c * h * w", "channels": "c", "hw": "h * w"},
        ),
    ),
    reference=reference,
    inputs={"x": "f32[1, 2, h, w]", "conv_weight": "f32[c, 2, 3, 3]", "conv_bias": "f32[c]", "bias": "f32[c]"},
    outputs={"out": "f32[1, c, h, w]"},
    scratch={"t0": "f32[1, c, h, w]"},
    symbols=["c", "h", "w"],
    constraints=["c <= 64", "h <= 64", "w <= 64"],
    instances=[{"c": 2, "h": 3, "w": 3}, {"c": 3, "h": 2, "w": 4}],
)
