"""A task file that prints while it loads (debugging output left in), over a kernel larkc does not read."""

import torch

from larkc import ScalarArg, Task

print("loading the clamp task")


def reference(x: torch.Tensor) -> torch.Tensor:
    print("tracing the reference")
    return torch.clamp(x, -1.0, 1.0)


task = Task(
    name="noisy",
    source="../clamp_goto/kernel.cu",
    kernel="clamp_goto",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"y": "f32[n]"},
    bindings={"lo": ScalarArg(-1.0), "hi": ScalarArg(1.0)},
    symbols=["n"],
    instances=[{"n": 64}],
    grid=["cdiv(n, 64)"],
    block=[64],
)
