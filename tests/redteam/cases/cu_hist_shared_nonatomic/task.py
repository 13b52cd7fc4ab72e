import torch

from larkc import Task


def reference(bins: torch.Tensor) -> torch.Tensor:
    return (bins[:, None] == torch.arange(16)).sum(dim=0).to(torch.int32)


task = Task(
    source="kernel.cu",
    kernel="histogram16_kernel",
    reference=reference,
    inputs={"bins": "i32[n] in [0, 16)"},
    outputs={"hist": (("16",), "i32", "zeros")},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 1}, {"n": 40}],
    grid=["cdiv(n, 64)"],
    block=[64],
)
