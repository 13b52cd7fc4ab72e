import torch

from larkc import Task


def reference(x: torch.Tensor, scale: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    y = x * scale
    return y, torch.clamp(y.max(), min=0.0).reshape(1)


task = Task(
    source="kernel.py",
    kernel="scale_max_kernel",
    reference=reference,
    inputs={"x": "f32[n]", "scale": "f32[1]"},
    outputs={"out": "f32[n]", "m": (("1",), "f32", "zeros")},
    bindings={"x_ptr": "x", "scale_ptr": "scale", "out_ptr": "out", "m_ptr": "m", "n": "n", "BLOCK": 64},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 100}, {"n": 64}, {"n": 1}],
    grid=["cdiv(n, 64)"],
    block=[1],
)
