import torch

from larkc import Task


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b


task = Task(
    source="kernel.cu",
    kernel="add_vec4_kernel",
    reference=reference,
    inputs={"a": "f32[n]", "b": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 4194304"],
    instances=[{"n": 8}, {"n": 11}, {"n": 3}],
    grid=["cdiv(cdiv(n, 4), 128)"],
    block=[128],
)
