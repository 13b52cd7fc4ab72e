import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(-1, 16).sum(dim=1)


task = Task(
    source="kernel.cu",
    kernel="seg16_sum_kernel",
    reference=reference,
    inputs={"x": "f32[16 * s]"},
    outputs={"out": "f32[s]"},
    bindings={"n_seg": "s"},
    symbols=["s"],
    constraints=["s <= 65536"],
    instances=[{"s": 1}, {"s": 5}],
    grid=["cdiv(16 * s, 128)"],
    block=[128],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
