import torch

from larkc import Task


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x * x, torch.log(x)


task = Task(
    source="kernel.cu",
    kernel="square_and_log",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"sq": "f32[n]", "lg": "f32[n]"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 3}],
    grid=["cdiv(n, 64)"],
    block=[64],
    tolerance={"rtol": 1e-5, "atol": 1e-6},
)
