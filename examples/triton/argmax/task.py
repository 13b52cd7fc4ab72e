import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.argmax(x, dim=-1).to(torch.int32)


task = Task(
    source="kernel.py",
    kernel="row_argmax_kernel",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    outputs={"idx": "i32[r]"},
    bindings={"x_ptr": "x", "out_ptr": "idx", "stride": "d", "n_cols": "d", "BLOCK": 64},
    symbols=["r", "d"],
    constraints=["d <= 64", "r * d <= 2147483647"],
    instances=[{"r": 6, "d": 50}, {"r": 2, "d": 64}, {"r": 3, "d": 1}],
    grid=["r"],
    block=[1],
)
