import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x[:1], x])[:-1]


task = Task(
    source="kernel.py",
    kernel="shift_right_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"x": "f32[n]"},
    bindings={"x_ptr": "x", "BLOCK": 256},
    symbols=["n"],
    constraints=["n <= 256"],
    instances=[{"n": 5}, {"n": 200}],
    grid=[1],
    block=[1],
)
