import torch

from larkc import Task


def reference(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return x + b


task = Task(
    source="kernel.py",
    kernel="add_bias_2d_kernel",
    reference=reference,
    inputs={"x": "f32[m, n]", "b": "f32[n]"},
    outputs={"out": "f32[m, n]"},
    bindings={
        "x_ptr": "x",
        "b_ptr": "b",
        "out_ptr": "out",
        "M": "m",
        "N": "n",
        "stride_m": "n",
        "BLOCK_M": 16,
        "BLOCK_N": 32,
    },
    symbols=["m", "n"],
    constraints=["m <= 4096", "n <= 4096"],
    instances=[{"m": 5, "n": 32}, {"m": 17, "n": 64}],
    grid=["cdiv(m, 16)", "cdiv(n, 32)"],
    block=[1],
)
