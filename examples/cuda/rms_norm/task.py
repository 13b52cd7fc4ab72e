"""RMSNorm (float) with weight and eps, the block size a multiple of 32 following hidden_size."""

import torch

from larkc import ScalarArg, Task

EPS = 1e-6


def reference(input: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    variance = input.pow(2).mean(dim=-1, keepdim=True)
    return input * torch.rsqrt(variance + EPS) * weight


task = Task(
    name="rms_norm",
    source="kernel.cu",
    kernel="rms_norm_kernel",
    reference=reference,
    inputs={"input": "f32[num_tokens, hidden_size]", "weight": "f32[hidden_size]"},
    outputs={"out": "f32[num_tokens, hidden_size]"},
    bindings={"epsilon": ScalarArg(EPS)},
    symbols=["num_tokens", "hidden_size"],
    constraints=["hidden_size <= 65536", "num_tokens <= 2147483647"],
    instances=[
        {"num_tokens": 1, "hidden_size": 1},
        {"num_tokens": 3, "hidden_size": 100},
        {"num_tokens": 16, "hidden_size": 1024},
        {"num_tokens": 2, "hidden_size": 2050},
    ],
    grid=["num_tokens"],
    block=["32 * cdiv(min(hidden_size, 1024), 32)"],
)
