import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x[-1:], x[:-1]])


task = Task(
    source="kernel.py",
    kernel="roll1_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"x_ptr": "x", "out_ptr": "out", "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}, {"n": 200}],
    grid=["cdiv(n, 128)"],
    block=[1],
)
