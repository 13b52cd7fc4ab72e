"""llm.c-style residual add over Packed128<bf16> (load128/store128 through int4)."""

import torch

from larkc import Task


def reference(inp1: torch.Tensor, inp2: torch.Tensor) -> torch.Tensor:
    return (inp1.float() + inp2.float()).to(torch.bfloat16)


task = Task(
    source="kernel.cu",
    kernel="residual_packed",
    reference=reference,
    inputs={"inp1": "bf16[n]", "inp2": "bf16[n]"},
    outputs={"out": "bf16[n]"},
    bindings={"N": "n"},
    symbols=["n"],
    constraints=["n % 8 == 0", "n <= 16777216"],
    instances=[{"n": 8}, {"n": 1024}, {"n": 2056}],
    grid=["cdiv(n, 8 * 128)"],
    block=[128],
)
