"""Seeded bug of the non-finite guard: tests isnan only and scales by 1 + scale."""

import torch

from larkc import ScalarArg, Task


def reference(input: torch.Tensor) -> torch.Tensor:
    bad = torch.isinf(input) | torch.isnan(input)
    return torch.where(bad, torch.zeros_like(input), input * 0.5)


task = Task(
    name="nonfinite_guard_bug_keeps_inf",
    source="kernel_bug_keeps_inf.cu",
    kernel="nonfinite_guard_kernel",
    reference=reference,
    inputs={"input": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"scale": ScalarArg(0.5), "num_elems": "n"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 1}, {"n": 37}, {"n": 1000}],
    grid=["min(cdiv(n, 256), 8)"],
    block=[256],
)
