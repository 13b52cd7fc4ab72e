"""GELU-and-mul with the activation chosen by a function-pointer template argument (vLLM style)."""

import torch
from torch.nn.functional import gelu

from larkc import Task


def reference(input: torch.Tensor) -> torch.Tensor:
    d = input.shape[-1] // 2
    return gelu(input[..., :d]) * input[..., d:]


task = Task(
    name="act_and_mul",
    source="kernel.cu",
    kernel="act_and_mul",
    template_args={"scalar_t": "float", "ACT_FN": "act::gelu<float>"},
    reference=reference,
    inputs={"input": "f32[tokens, 2 * d]"},
    outputs={"out": "f32[tokens, d]"},
    symbols=["tokens", "d"],
    constraints=["d <= 8192", "tokens <= 2147483647"],
    instances=[{"tokens": 1, "d": 1}, {"tokens": 3, "d": 300}, {"tokens": 4, "d": 1100}],
    grid=["tokens"],
    block=[256],
)
