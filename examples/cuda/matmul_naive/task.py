"""Naive matrix multiplication on a 2-D grid of 16x16 blocks, ragged M, N, K."""

import torch

from larkc import Task


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b


task = Task(
    name="matmul_naive",
    source="kernel.cu",
    kernel="matmul_naive",
    reference=reference,
    inputs={"a": "f32[M, K]", "b": "f32[K, N]"},
    outputs={"c": "f32[M, N]"},
    symbols=["M", "N", "K"],
    constraints=["M <= 4096", "N <= 4096", "K <= 4096"],
    instances=[
        {"M": 1, "N": 1, "K": 1},
        {"M": 17, "N": 33, "K": 9},
        {"M": 40, "N": 24, "K": 64},
        {"M": 64, "N": 64, "K": 64},
    ],
    grid=["cdiv(N, 16)", "cdiv(M, 16)"],
    block=[16, 16],
)
