"""SiLU-and-mul in half precision: template on the scalar type, one block per token."""

import torch
from torch.nn.functional import silu

from larkc import Task


def reference(input: torch.Tensor) -> torch.Tensor:
    x, y = input.float().chunk(2, dim=-1)
    return (silu(x) * y).half()


task = Task(
    name="silu_and_mul",
    source="kernel.cu",
    kernel="silu_and_mul_kernel",
    template_args={"scalar_t": "__half"},
    reference=reference,
    inputs={"input": "f16[tokens, 2 * d]"},
    outputs={"out": "f16[tokens, d]"},
    symbols=["tokens", "d"],
    constraints=["d <= 16384", "tokens <= 2147483647"],
    instances=[{"tokens": 1, "d": 1}, {"tokens": 3, "d": 200}, {"tokens": 4, "d": 1100}],
    grid=["tokens"],
    block=["min(d, 1024)"],
)
