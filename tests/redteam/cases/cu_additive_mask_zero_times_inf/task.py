import torch

from larkc import Task


def reference(s: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    return s.masked_fill(~keep, float("-inf"))


task = Task(
    source="kernel.cu",
    kernel="mask_scores_kernel",
    reference=reference,
    inputs={"s": "f32[n]", "keep": "bool[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 4}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
