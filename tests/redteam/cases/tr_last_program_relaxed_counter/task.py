import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    source="kernel.py",
    kernel="one_pass_sum_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[1]"},
    scratch={"partial": "f32[cdiv(n, 64)]", "count": (("1",), "i32", "zeros")},
    bindings={
        "x_ptr": "x",
        "partial_ptr": "partial",
        "count_ptr": "count",
        "out_ptr": "out",
        "BLOCK": 64,
        "MAX_PROGRAMS": 64,
    },
    symbols=["n"],
    constraints=["n <= 4096"],
    instances=[{"n": 50}],
    grid=["cdiv(n, 64)"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
