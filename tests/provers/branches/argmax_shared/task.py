import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.argmax(x, dim=-1)


task = Task(
    source="kernel.cu",
    kernel="block_argmax",
    reference=reference,
    inputs={"x": "f32[rows, cols]"},
    outputs={"out": "i64[rows]"},
    symbols=["rows", "cols"],
    constraints=["cols <= 8192", "rows <= 2147483647"],  # one block per row: gridDim.x <= 2^31 - 1
    instances=[{"rows": 1, "cols": 5}, {"rows": 2, "cols": 9}],
    grid=["rows"],
    block=[64],
)
