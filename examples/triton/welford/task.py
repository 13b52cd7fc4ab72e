import torch

from larkc import Task


def reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.mean(dim=-1), x.var(dim=-1, unbiased=False)


task = Task(
    source="kernel.py",
    kernel="welford_kernel",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    outputs={"mean": "f32[r]", "var": "f32[r]"},
    bindings={"x_ptr": "x", "mean_ptr": "mean", "var_ptr": "var", "stride": "d", "n_cols": "d", "BLOCK": 64},
    symbols=["r", "d"],
    constraints=["d <= 64", "r <= 65536"],
    instances=[{"r": 5, "d": 50}, {"r": 2, "d": 64}, {"r": 3, "d": 3}],
    grid=["r"],
    block=[1],
)
