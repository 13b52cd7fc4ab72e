"""Half-precision scaling through a 16-byte packed struct ``Vec<__half, 8>``; needs n % 8 == 0."""

import torch

from larkc import ScalarArg, Task

SCALE = 0.37


def reference(x: torch.Tensor) -> torch.Tensor:
    return (x.float() * SCALE).half()


task = Task(
    name="half_scale",
    source="kernel.cu",
    kernel="half_scale",
    reference=reference,
    inputs={"x": "f16[n]"},
    outputs={"out": "f16[n]"},
    bindings={"scale": ScalarArg(SCALE)},
    symbols=["n"],
    constraints=["n % 8 == 0", "n <= 16777216"],
    instances=[{"n": 8}, {"n": 1000}, {"n": 4104}],
    grid=["cdiv(n // 8, 128)"],
    block=[128],
)
