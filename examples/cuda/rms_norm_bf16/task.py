"""RMSNorm in bfloat16 (``__nv_bfloat16``), computed in float and rounded once."""

import torch

from larkc import ScalarArg, Task

EPS = 1e-5


def reference(input: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    x = input.float()
    variance = x.pow(2).mean(dim=-1, keepdim=True)
    return (x * torch.rsqrt(variance + EPS) * weight.float()).to(torch.bfloat16)


task = Task(
    name="rms_norm_bf16",
    source="kernel.cu",
    kernel="rms_norm_bf16",
    reference=reference,
    inputs={"input": "bf16[tokens, hidden_size]", "weight": "bf16[hidden_size]"},
    outputs={"out": "bf16[tokens, hidden_size]"},
    bindings={"epsilon": ScalarArg(EPS)},
    symbols=["tokens", "hidden_size"],
    constraints=["hidden_size <= 65536", "tokens <= 2147483647"],
    instances=[
        {"tokens": 1, "hidden_size": 2},
        {"tokens": 4, "hidden_size": 333},
        {"tokens": 8, "hidden_size": 1024},
    ],
    grid=["tokens"],
    block=["32 * min(cdiv(hidden_size, 32), 16)"],
)
