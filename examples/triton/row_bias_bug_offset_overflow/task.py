import torch

from larkc import Task


def reference(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return x + b[None, :]


task = Task(
    source="kernel.py",
    kernel="row_bias_kernel",
    reference=reference,
    inputs={"x": "f32[r, d]", "b": "f32[d]"},
    outputs={"out": "f32[r, d]"},
    bindings={"x_ptr": "x", "b_ptr": "b", "out_ptr": "out", "n_cols": "d", "stride": "d", "BLOCK": 128},
    symbols=["r", "d"],
    constraints=["d <= 65536", "r <= 2147483647"],
    instances=[{"r": 3, "d": 100}, {"r": 2, "d": 300}, {"r": 1, "d": 1}],
    grid=["r"],
    block=[1],
    expected_failure="overflow",  # row * stride in int32 wraps once r * d >= 2^31
)
