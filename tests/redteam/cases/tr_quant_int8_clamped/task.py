import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x * 64.0, -128, 127).to(torch.int8)


task = Task(
    source="kernel.py",
    kernel="quantize_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"q": "i8[n]"},
    bindings={"x_ptr": "x", "q_ptr": "q", "inv_scale": 64.0, "n_elements": "n", "BLOCK_SIZE": 256},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}],
    grid=["cdiv(n, 256)"],
    block=[1],
)
