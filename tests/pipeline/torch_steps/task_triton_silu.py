"""A linear layer left to PyTorch (F.linear), then a Triton SiLU kernel, against linear + silu."""

import torch.nn.functional as F

from larkc.tasks import KernelLaunch, Task, TorchStep


def reference(x, weight, bias):
    return F.silu(F.linear(x, weight, bias))


def _linear(x, weight, bias):
    return F.linear(x, weight, bias)


task = Task(
    source="fused_triton.py",
    launches=(
        TorchStep(function=_linear, inputs=("x", "weight", "bias"), outputs=("h",), label="self.fc(x)"),
        KernelLaunch(
            kernel="silu_kernel",
            grid=["cdiv(b * n, 16)"],
            block=[1],
            bindings={"x_ptr": "h", "out_ptr": "out", "n_elements": "b * n", "BLOCK": 16},
        ),
    ),
    reference=reference,
    inputs={"x": "f32[b, k]", "weight": "f32[n, k]", "bias": "f32[n]"},
    outputs={"out": "f32[b, n]"},
    scratch={"h": "f32[b, n]"},
    symbols=["b", "k", "n"],
    constraints=["b <= 64", "k <= 64", "n <= 64"],
    instances=[{"b": 2, "k": 3, "n": 5}, {"b": 3, "k": 2, "n": 4}],
)
