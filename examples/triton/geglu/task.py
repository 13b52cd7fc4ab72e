import torch

from larkc import Task


def reference(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(a) * b


task = Task(
    source="kernel.py",
    kernel="geglu_kernel",
    reference=reference,
    inputs={"a": "f32[n]", "b": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"a_ptr": "a", "b_ptr": "b", "out_ptr": "out", "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 300}, {"n": 128}, {"n": 1}],
    grid=["cdiv(n, 128)"],
    block=[1],
)
