import torch

from larkc import Task


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    xf = x.float()
    y = xf * torch.rsqrt((xf * xf).mean(dim=-1, keepdim=True) + 1e-6) * w.float()
    return y.half()


task = Task(
    source="kernel.py",
    kernel="rms_norm_kernel",
    reference=reference,
    inputs={"x": "f16[m, n]", "w": "f16[n]"},
    outputs={"y": "f16[m, n]"},
    bindings={
        "x_ptr": "x",
        "w_ptr": "w",
        "y_ptr": "y",
        "x_stride": "n",
        "y_stride": "n",
        "n_cols": "n",
        "eps": 1e-6,
        "BLOCK": "next_pow2(n)",
    },
    symbols=["m", "n"],
    constraints=["n <= 8192", "m * n <= 2147483647"],
    instances=[{"m": 5, "n": 100}, {"m": 2, "n": 128}, {"m": 3, "n": 33}],
    grid=["m"],
    block=[1],
    tolerance={"rtol": 2e-3, "atol": 2e-3},
)
