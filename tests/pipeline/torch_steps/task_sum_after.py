"""conv2d in PyTorch, the fused bias + ReLU kernel, then a channel sum PyTorch computes (a step after the kernel)."""

import torch
import torch.nn.functional as F

from larkc.tasks import KernelLaunch, Task, TorchStep


def reference(x, conv_weight, conv_bias, bias):
    y = torch.relu(F.conv2d(x, conv_weight, conv_bias, padding=1) + bias.view(1, -1, 1, 1))
    return y.sum(dim=1)


def _conv(x, conv_weight, conv_bias):
    return F.conv2d(x, conv_weight, conv_bias, padding=1)


def _sum(y):
    return y.sum(dim=1)


task = Task(
    source="fused.cu",
    launches=(
        TorchStep(function=_conv, inputs=("x", "conv_weight", "conv_bias"), outputs=("t0",), label="self.conv(x)"),
        KernelLaunch(
            kernel="bias_relu_kernel",
            grid=["cdiv(c * h * w, 64)"],
            block=[64],
            bindings={"t": "t0", "out": "t1", "total": "c * h * w", "channels": "c", "hw": "h * w"},
        ),
        TorchStep(function=_sum, inputs=("t1",), outputs=("out",), label="x.sum(dim=1)"),
    ),
    reference=reference,
    inputs={"x": "f32[1, 2, h, w]", "conv_weight": "f32[c, 2, 3, 3]", "conv_bias": "f32[c]", "bias": "f32[c]"},
    outputs={"out": "f32[1, h, w]"},
    scratch={"t0": "f32[1, c, h, w]", "t1": "f32[1, c, h, w]"},
    symbols=["c", "h", "w"],
    constraints=["c <= 64", "h <= 64", "w <= 64"],
    instances=[{"c": 2, "h": 3, "w": 3}, {"c": 3, "h": 2, "w": 2}],
)
