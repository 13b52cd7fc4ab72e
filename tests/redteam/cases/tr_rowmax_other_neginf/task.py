import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.amax(x, dim=-1)


task = Task(
    source="kernel.py",
    kernel="_row_max_kernel",
    reference=reference,
    inputs={"x": "f32[m, n]"},
    outputs={"y": "f32[m]"},
    bindings={"X": "x", "Y": "y", "stride_xm": "n", "N_COLS": "n", "BLOCK_SIZE": "next_pow2(n)"},
    symbols=["m", "n"],
    constraints=["n <= 1024", "m <= 4096"],
    instances=[{"m": 2, "n": 5}, {"m": 1, "n": 16}],
    grid=["m"],
    block=[1],
)
