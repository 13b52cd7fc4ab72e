import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.clamp(x * 64.0, -128, 127).to(torch.int8)


task = Task(
    source="kernel.cu",
    kernel="quantize_int8_kernel",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"q": "i8[n]"},
    bindings={"inv_scale": 64.0},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
