import torch
import torch.nn.functional as F

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), eps=1e-5)


task = Task(
    source="kernel.cu",
    kernel="layernorm_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"y": "f32[rows, d]"},
    bindings={"eps": 1e-5},
    symbols=["rows", "d"],
    constraints=["d >= 2", "d <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "d": 4}],
    grid=["rows"],
    block=[32],
    tolerance={"rtol": 1e-3, "atol": 1e-4},
)
