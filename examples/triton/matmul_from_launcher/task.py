"""A task taken from matmul() in ../matmul/kernel.py: strides, sizes and the grouped grid derived."""

import torch

from larkc.frontends.triton.launcher import task_from_launcher


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (a.float() @ b.float()).half()


task = task_from_launcher(
    "../matmul/kernel.py:matmul",
    reference=reference,
    inputs={"a": "f16[m, k]", "b": "f16[k, n]"},
    symbols=["m", "n", "k"],
    constraints=["m <= 8192", "n <= 8192", "k <= 8192"],
    instances=[{"m": 40, "n": 48, "k": 40}, {"m": 64, "n": 100, "k": 16}, {"m": 33, "n": 17, "k": 70}],
    tolerance={"rtol": 2e-3, "atol": 2e-2},
)
