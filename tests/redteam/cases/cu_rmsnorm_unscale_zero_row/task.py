import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


task = Task(
    source="kernel.cu",
    kernel="rms_roundtrip_kernel",
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"y": "f32[rows, d]"},
    bindings={"d": "d"},
    symbols=["rows", "d"],
    constraints=["d <= 4096", "rows <= 4096"],
    instances=[{"rows": 2, "d": 3}],
    grid=["rows"],
    block=[32],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
