import torch

from larkc import Task


def reference(
    x: torch.Tensor, dy: torch.Tensor, w: torch.Tensor, mean: torch.Tensor, rstd: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = w * dy
    c1 = (xhat * wdy).mean(dim=-1, keepdim=True)
    c2 = wdy.mean(dim=-1, keepdim=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    return dx, (dy * xhat).sum(dim=0), dy.sum(dim=0)


task = Task(
    source="kernel.py",
    kernel="layer_norm_bwd",
    reference=reference,
    inputs={"x": "f32[m, n]", "dy": "f32[m, n]", "w": "f32[n]", "mean": "f32[m]", "rstd": "f32[m]"},
    outputs={"dx": "f32[m, n]", "dw": (("n",), "f32", "zeros"), "db": (("n",), "f32", "zeros")},
    bindings={
        "X": "x",
        "DY": "dy",
        "W": "w",
        "Mean": "mean",
        "Rstd": "rstd",
        "DX": "dx",
        "DW": "dw",
        "DB": "db",
        "stride": "n",
        "N": "n",
        "BLOCK": "next_pow2(n)",
    },
    symbols=["m", "n"],
    constraints=["n <= 4096", "m * n <= 2147483647"],
    instances=[{"m": 3, "n": 70}, {"m": 5, "n": 64}, {"m": 1, "n": 1}],
    grid=["m"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
