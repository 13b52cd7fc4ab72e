import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    a, b = x.chunk(2, dim=-1)
    return torch.nn.functional.silu(a) * b


task = Task(
    source="kernel.py",
    kernel="swiglu_kernel",
    reference=reference,
    inputs={"x": "f32[m, 2 * n]"},
    outputs={"out": "f32[m, n]"},
    bindings={"x_ptr": "x", "out_ptr": "out", "n_cols": "n", "BLOCK": 32},
    symbols=["m", "n"],
    constraints=["n <= 65536", "m * 2 * n <= 2147483647"],
    instances=[{"m": 3, "n": 70}, {"m": 1, "n": 32}, {"m": 2, "n": 5}],
    grid=["m", "cdiv(n, 32)"],
    block=[1],
)
