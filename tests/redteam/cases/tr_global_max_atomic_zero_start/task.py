import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.max().reshape(1)


task = Task(
    source="kernel.py",
    kernel="global_max_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": (("1",), "f32", "zeros")},
    bindings={"x_ptr": "x", "out_ptr": "out", "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 3}, {"n": 200}],
    grid=["cdiv(n, 128)"],
    block=[1],
)
