import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x / x.sum()


task = Task(
    source="kernel.py",
    kernel="normalize_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    scratch={"total": (("1",), "f32", "zeros")},
    bindings={"x_ptr": "x", "total_ptr": "total", "y_ptr": "y", "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 5}, {"n": 128}],
    grid=["cdiv(n, 128)"],
    block=[1],
    tolerance={"rtol": 1e-3, "atol": 1e-5},
)
