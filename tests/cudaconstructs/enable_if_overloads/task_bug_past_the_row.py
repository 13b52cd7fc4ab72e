"""Seeded bug: vLLM-style vectorised overload reading one vector past the row (enable_if chooses it)."""

import torch

from larkc import Task


def reference(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    z = (input.float() + residual.float()).half()
    return (z.float() * weight.float()).half(), z


task = Task(
    source="kernel.cu",
    kernel="fused_add_scale_bug_kernel",
    template_args={"scalar_t": "__half", "width": 8},
    reference=reference,
    expected_failure="oob",
    inputs={"input": "f16[tokens, hidden]", "residual": "f16[tokens, hidden]", "weight": "f16[hidden]"},
    outputs={"input": "f16[tokens, hidden]", "residual": "f16[tokens, hidden]"},
    bindings={"num_tokens": "tokens", "hidden_size": "hidden"},
    symbols=["tokens", "hidden"],
    constraints=["hidden % 8 == 0", "hidden <= 8192", "tokens <= 4096"],
    instances=[{"tokens": 2, "hidden": 64}, {"tokens": 3, "hidden": 200}],
    grid=["tokens"],
    block=["min(hidden, 128)"],
)
