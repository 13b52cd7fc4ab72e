"""vLLM-style fused residual add: the generic overload, chosen by enable_if for <float, 0>."""

import torch

from larkc import Task


def reference(input: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    z = input + residual
    return z * weight, z


task = Task(
    source="kernel.cu",
    kernel="fused_add_scale_kernel",
    template_args={"scalar_t": "float", "width": 0},
    reference=reference,
    inputs={"input": "f32[tokens, hidden]", "residual": "f32[tokens, hidden]", "weight": "f32[hidden]"},
    outputs={"input": "f32[tokens, hidden]", "residual": "f32[tokens, hidden]"},
    bindings={"num_tokens": "tokens", "hidden_size": "hidden"},
    symbols=["tokens", "hidden"],
    constraints=["hidden % 8 == 0", "hidden <= 8192", "tokens <= 4096"],
    instances=[{"tokens": 2, "hidden": 64}, {"tokens": 3, "hidden": 200}],
    grid=["tokens"],
    block=["min(hidden, 128)"],
)
