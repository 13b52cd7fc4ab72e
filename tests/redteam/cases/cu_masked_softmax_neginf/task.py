import torch

from larkc import Task


def reference(s: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return s.masked_fill(mask, float("-inf")).softmax(dim=-1)


task = Task(
    source="kernel.cu",
    kernel="masked_softmax_kernel",
    reference=reference,
    inputs={"s": "f32[rows, d]", "mask": "bool[rows, d]"},
    outputs={"p": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 32", "rows <= 4096"],
    instances=[{"rows": 2, "d": 3}],
    grid=["rows"],
    block=[32],
    tolerance={"rtol": 1e-4, "atol": 1e-6},
)
