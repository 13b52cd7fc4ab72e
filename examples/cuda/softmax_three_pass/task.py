"""Three-pass row softmax with ``extern __shared__`` sized by the launch."""

import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


task = Task(
    name="softmax_three_pass",
    source="kernel.cu",
    kernel="softmax_three_pass",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows, d]"},
    symbols=["rows", "d"],
    constraints=["d <= 65536", "rows <= 2147483647"],
    instances=[{"rows": 1, "d": 1}, {"rows": 4, "d": 77}, {"rows": 16, "d": 1000}, {"rows": 3, "d": 256}],
    grid=["rows"],
    block=["min(next_pow2(d), 256)"],
    shared_bytes="4 * min(next_pow2(d), 256)",
)
