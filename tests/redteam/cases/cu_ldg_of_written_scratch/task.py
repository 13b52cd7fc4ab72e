import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return 2 * torch.cat([x[1:], x[:1]])


task = Task(
    source="kernel.cu",
    kernel="rotate_scale_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    scratch={"tmp": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1024"],
    instances=[{"n": 3}, {"n": 100}],
    grid=[1],
    block=[1024],
)
