import torch
import torch.nn.functional as F

from larkc import Task


def reference(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)


task = Task(
    source="kernel.py",
    kernel="_layer_norm_fwd",
    reference=reference,
    inputs={"x": "f32[rows, d]", "w": "f32[d]", "b": "f32[d]"},
    outputs={"y": "f32[rows, d]"},
    bindings={
        "X": "x",
        "Y": "y",
        "W": "w",
        "B": "b",
        "stride": "d",
        "N": "d",
        "eps": 1e-5,
        "BLOCK_SIZE": "next_pow2(d)",
    },
    symbols=["rows", "d"],
    constraints=["d >= 2", "d <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "d": 3}],
    grid=["rows"],
    block=[1],
    tolerance={"rtol": 1e-3, "atol": 1e-4},
)
