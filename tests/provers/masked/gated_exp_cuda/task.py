import torch

from larkc import Task


def reference(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    return torch.where(gate, torch.exp(x), 0.0)


task = Task(
    source="kernel.cu",
    kernel="gated_exp",
    reference=reference,
    inputs={"x": "f32[n]", "gate": "bool[n]"},
    outputs={"y": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 6}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
