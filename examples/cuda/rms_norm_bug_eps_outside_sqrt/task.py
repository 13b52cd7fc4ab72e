"""Seeded bug: RMSNorm dividing by sqrt(mean(x^2)) + eps; eps = 0.1 makes the error far above
float32 tolerance (about 5% when mean(x^2) is near 1)."""

import torch

from larkc import ScalarArg, Task

EPS = 0.1


def reference(input: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    variance = input.pow(2).mean(dim=-1, keepdim=True)
    return input * torch.rsqrt(variance + EPS) * weight


task = Task(
    name="rms_norm_bug_eps_outside_sqrt",
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
    expected_failure="mismatch",
)
