"""Online softmax: a struct state merged through warp shuffles and shared memory."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


task = Task(
    name="softmax_online",
    source="kernel.cu",
    kernel="softmax_online",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 2147483647"],
    instances=[{"rows": 1, "d": 1}, {"rows": 5, "d": 129}, {"rows": 8, "d": 1024}, {"rows": 2, "d": 3000}],
    grid=["rows"],
    block=[128],
)
