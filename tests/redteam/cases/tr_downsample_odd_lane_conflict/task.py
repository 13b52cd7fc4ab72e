import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(-1, 2)[:, 1]


task = Task(
    source="kernel.py",
    kernel="downsample2_kernel",
    reference=reference,
    inputs={"x": "f32[2 * m]"},
    outputs={"out": "f32[m]"},
    bindings={"x_ptr": "x", "out_ptr": "out", "n_elements": "2 * m", "BLOCK_SIZE": 128},
    symbols=["m"],
    constraints=["m <= 1048576"],
    instances=[{"m": 3}, {"m": 100}],
    grid=["cdiv(2 * m, 128)"],
    block=[1],
)
