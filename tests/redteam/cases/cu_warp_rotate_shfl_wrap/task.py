import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x[:, 1:], x[:, :1]], dim=1)


task = Task(
    source="kernel.cu",
    kernel="rotate_left_kernel",
    reference=reference,
    inputs={"x": "f32[rows, 32]"},
    outputs={"y": "f32[rows, 32]"},
    symbols=["rows"],
    constraints=["rows <= 65536"],
    instances=[{"rows": 1}, {"rows": 3}],
    grid=["rows"],
    block=[32],
)
