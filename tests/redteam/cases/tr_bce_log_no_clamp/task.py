import torch

from larkc import Task


def reference(p: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    # F.binary_cross_entropy(p, t, reduction="none"), spelled out: each log clamped at -100
    return -(t * torch.clamp(torch.log(p), min=-100.0) + (1 - t) * torch.clamp(torch.log(1 - p), min=-100.0))


task = Task(
    source="kernel.py",
    kernel="bce_kernel",
    reference=reference,
    inputs={"p": "f32[n]", "t": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"p_ptr": "p", "t_ptr": "t", "out_ptr": "out", "BLOCK": 128},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 5}],
    grid=["cdiv(n, 128)"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
