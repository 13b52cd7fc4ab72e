"""The scale + clamp kernel after PyTorch's conv1d, launched with a wrong upper bound, 5.0 for 6.0 (seeded bug)."""

import torch
import torch.nn.functional as F

from larkc.tasks import KernelLaunch, Task, TorchStep

HI = 5.0


def reference(x, conv_weight, conv_bias):
    return torch.clamp(F.conv1d(x, conv_weight, conv_bias) * 0.5, min=0.0, max=6.0)


def _step0(x, conv_weight, conv_bias):
    return F.conv1d(x, conv_weight, conv_bias)


task = Task(
    source="fused.cu",
    launches=(
        TorchStep(function=_step0, inputs=("x", "conv_weight", "conv_bias"), outputs=("t0",), label="self.conv(x)"),
        KernelLaunch(
            kernel="scale_clamp_kernel",
            grid=[2],
            block=[32],
            bindings={"t": "t0", "total": "b * c * (l - 2)", "scale": 0.5, "lo": 0.0, "hi": HI},
        ),
    ),
    reference=reference,
    inputs={"x": "f32[b, 3, l]", "conv_weight": "f32[c, 3, 3]", "conv_bias": "f32[c]"},
    outputs={"out": "f32[b, c, l - 2]"},
    scratch={"t0": "f32[b, c, l - 2]"},
    symbols=["b", "c", "l"],
    constraints=["l >= 3", "b <= 16", "c <= 16", "l <= 64"],
    instances=[{"b": 2, "c": 2, "l": 5}, {"b": 1, "c": 3, "l": 4}],
    expected_failure="mismatch",
)
