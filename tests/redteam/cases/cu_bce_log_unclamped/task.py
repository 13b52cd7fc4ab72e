import torch

from larkc import Task


def reference(p: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    log_p = torch.clamp(torch.log(p), min=-100)
    log_q = torch.clamp(torch.log(1 - p), min=-100)
    return -(t * log_p + (1 - t) * log_q)


task = Task(
    source="kernel.cu",
    kernel="bce_kernel",
    reference=reference,
    inputs={"p": "f32[n]", "t": "f32[n]"},
    outputs={"out": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 4}],
    grid=["cdiv(n, 128)"],
    block=[128],
)
