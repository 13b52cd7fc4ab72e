"""Seeded bug: matmul_naive reading b transposed; square shapes keep every access in bounds."""

import torch

from larkc import Task


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b


task = Task(
    name="matmul_naive_bug_transposed_index",
    source="kernel.cu",
    kernel="matmul_naive",
    reference=reference,
    inputs={"a": "f32[M, K]", "b": "f32[K, N]"},
    outputs={"c": "f32[M, N]"},
    symbols=["M", "N", "K"],
    # Square matrices only: the wrong index then stays in bounds and the result is a @ b.T.
    constraints=["M == N", "N == K", "K <= 4096"],
    instances=[
        {"M": 1, "N": 1, "K": 1},
        {"M": 5, "N": 5, "K": 5},
        {"M": 33, "N": 33, "K": 33},
    ],
    grid=["cdiv(N, 16)", "cdiv(M, 16)"],
    block=[16, 16],
    expected_failure="mismatch",
)
