import torch

from larkc import Task


def reference(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """The input rows are padded to p columns; the first n of each row are normalised."""
    n = w.shape[0]
    xs = x[:, :n]
    mean = xs.mean(dim=-1)
    rstd = 1 / torch.sqrt(xs.var(dim=-1, unbiased=False) + 1e-5)
    return torch.nn.functional.layer_norm(xs, (n,), w, b, eps=1e-5), mean, rstd


task = Task(
    expected_failure="mismatch",
    source="kernel.py",
    kernel="layer_norm_fwd",
    reference=reference,
    inputs={"x": "f32[m, p]", "w": "f32[n]", "b": "f32[n]"},
    outputs={"y": "f32[m, n]", "mean": "f32[m]", "rstd": "f32[m]"},
    bindings={
        "X": "x",
        "Y": "y",
        "W": "w",
        "B": "b",
        "Mean": "mean",
        "Rstd": "rstd",
        "x_stride": "p",
        "y_stride": "n",
        "N": "n",
        "eps": 1e-5,
        "BLOCK": 64,
    },
    symbols=["m", "n", "p"],
    constraints=["n <= p", "m * p <= 2147483647"],
    instances=[{"m": 3, "n": 70, "p": 80}],
    grid=["m"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
