import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    expected_failure="race",
    source="kernel.py",
    kernel="total_sum_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": (("1",), "f32", "zeros")},
    bindings={"x_ptr": "x", "out_ptr": "out", "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 1000}],
    grid=["cdiv(n, 128)"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
