import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.t().contiguous()


task = Task(
    source="kernel.py",
    kernel="transpose_kernel",
    reference=reference,
    inputs={"x": "f32[m, n]"},
    outputs={"y": "f32[n, m]"},
    bindings={
        "x_ptr": "x",
        "y_ptr": "y",
        "M": "m",
        "N": "n",
        "stride_xm": "n",
        "stride_ym": "m",
        "BLOCK_M": 16,
        "BLOCK_N": 8,
    },
    symbols=["m", "n"],
    constraints=["m <= 32768", "n <= 32768"],
    instances=[{"m": 20, "n": 13}, {"m": 16, "n": 8}, {"m": 5, "n": 30}],
    grid=["cdiv(m, 16)", "cdiv(n, 8)"],
    block=[1],
)
