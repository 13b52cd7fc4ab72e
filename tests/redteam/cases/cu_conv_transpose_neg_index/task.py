import torch
import torch.nn.functional as F

from larkc import Task


def reference(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return F.conv_transpose1d(x[None, None], w[None, None], stride=2)[0, 0]


task = Task(
    source="kernel.cu",
    kernel="conv_transpose1d_s2_kernel",
    reference=reference,
    inputs={"x": "f32[n]", "w": "f32[3]"},
    outputs={"out": "f32[2 * n + 1]"},
    bindings={"n_in": "n", "n_out": "2 * n + 1"},
    symbols=["n"],
    constraints=["n <= 65536"],
    instances=[{"n": 4}],
    grid=["cdiv(2 * n + 1, 128)"],
    block=[128],
    tolerance={"rtol": 1e-4, "atol": 1e-5},
)
