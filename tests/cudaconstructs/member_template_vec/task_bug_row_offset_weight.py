"""Seeded bug: flashinfer-style weighted scale reading the weight at the row's offset."""

import torch

from larkc import Task


def reference(input: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    return (input.float() * weight.float()).half()


task = Task(
    source="kernel.cu",
    kernel="WeightedScaleKernelBug",
    template_args={"VEC_SIZE": 8, "T": "__half"},
    reference=reference,
    expected_failure="oob",
    inputs={"input": "f16[batch, d]", "weight": "f16[d]"},
    outputs={"output": "f16[batch, d]"},
    bindings={"stride_input": "d", "stride_output": "d"},
    symbols=["batch", "d"],
    constraints=["d % 8 == 0", "d <= 16384", "batch <= 4096"],
    instances=[{"batch": 2, "d": 64}, {"batch": 1, "d": 520}],
    grid=["batch"],
    block=[32, 2],
)
