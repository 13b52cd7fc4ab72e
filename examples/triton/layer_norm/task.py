import torch

from larkc import Task


def reference(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
    n = x.shape[-1]
    mean = x.mean(dim=-1)
    rstd = 1 / torch.sqrt(x.var(dim=-1, unbiased=False) + 1e-5)
    return torch.nn.functional.layer_norm(x, (n,), w, b, eps=1e-5), mean, rstd


task = Task(
    source="kernel.py",
    kernel="layer_norm_fwd",
    reference=reference,
    inputs={"x": "f32[m, n]", "w": "f32[n]", "b": "f32[n]"},
    outputs={"y": "f32[m, n]", "mean": "f32[m]", "rstd": "f32[m]"},
    bindings={
        "X": "x",
        "Y": "y",
        "W": "w",
        "B": "b",
        "Mean": "mean",
        "Rstd": "rstd",
        "x_stride": "n",
        "y_stride": "n",
        "N": "n",
        "eps": 1e-5,
        "BLOCK": 64,
    },
    symbols=["m", "n"],
    constraints=["n <= 65536", "m * n <= 2147483647"],
    instances=[{"m": 3, "n": 70}, {"m": 2, "n": 64}, {"m": 4, "n": 200}],
    grid=["m"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
