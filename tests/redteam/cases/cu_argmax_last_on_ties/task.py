import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.argmax(x, dim=-1)


task = Task(
    source="kernel.cu",
    kernel="argmax_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"idx": "i64[rows]"},
    symbols=["rows", "d"],
    constraints=["d <= 1024", "rows <= 1024"],
    instances=[{"rows": 2, "d": 3}],
    grid=["rows"],
    block=[32],
)
