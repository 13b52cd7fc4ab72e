"""Seeded bug: RMSNorm with a 32-bit row offset ``blockIdx.x * hidden_size``, which overflows once
``num_tokens * hidden_size`` reaches 2^31 (sizes the task allows: tensors up to 64 GiB).

The small instances run correctly (``larkc run`` passes); ``larkc verify`` refutes integer overflow with
the smallest sizes at which it happens.
"""

import torch

from larkc import ScalarArg, Task

EPS = 1e-6


def reference(input: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    variance = input.pow(2).mean(dim=-1, keepdim=True)
    return input * torch.rsqrt(variance + EPS) * weight


task = Task(
    name="rms_norm_bug_index_overflow",
    source="kernel.cu",
    kernel="rms_norm_kernel",
    reference=reference,
    inputs={"input": "f32[num_tokens, hidden_size]", "weight": "f32[hidden_size]"},
    outputs={"out": "f32[num_tokens, hidden_size]"},
    bindings={"epsilon": ScalarArg(EPS)},
    symbols=["num_tokens", "hidden_size"],
    # No bound on num_tokens: only the tensor size limit (max_tensor_bytes, 2^36 bytes) bounds it.
    constraints=["hidden_size <= 65536", "num_tokens <= 2147483647"],
    instances=[
        {"num_tokens": 1, "hidden_size": 1},
        {"num_tokens": 3, "hidden_size": 100},
        {"num_tokens": 16, "hidden_size": 1024},
        {"num_tokens": 2, "hidden_size": 2050},
    ],
    grid=["num_tokens"],
    block=["32 * cdiv(min(hidden_size, 1024), 32)"],
    expected_failure="overflow",
)
