"""Seeded bug: the tree starts at a quarter of the block (vLLM-style fp8 scale)."""

import torch

from larkc import Task


def reference(input: torch.Tensor) -> torch.Tensor:
    return (input.abs().max() / torch.finfo(torch.float8_e4m3fn).max).reshape(1)


task = Task(
    source="kernel.cu",
    kernel="vllm::absmax_scale_bug_quarter_tree",
    template_args={"scalar_t": "float"},
    reference=reference,
    expected_failure="mismatch",
    inputs={"input": "f32[n]"},
    outputs={"scale": (("1",), "f32", "zeros")},
    bindings={"num_elems": "n"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 600}],
    grid=["cdiv(n, 256)"],
    block=[256],
)
