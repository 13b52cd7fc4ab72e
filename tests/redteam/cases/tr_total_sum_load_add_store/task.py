import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    source="kernel.py",
    kernel="sum_all_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": (("1",), "f32", "zeros")},
    bindings={"x_ptr": "x", "out_ptr": "out", "n_elements": "n", "BLOCK_SIZE": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}, {"n": 128}],
    grid=["cdiv(n, 128)"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
