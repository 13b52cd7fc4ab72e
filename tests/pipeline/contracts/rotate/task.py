"""rotate: a thread-dependent precondition before a barrier; n is a symbol of its own."""

import torch

from larkc import ShapeArg, Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x[1:], x[:1]])


task = Task(
    name="rotate",
    source="kernel.cu",
    kernel="rotate",
    reference=reference,
    inputs={"x": "f32[b]"},
    outputs={"out": "f32[b]"},
    bindings={"n": ShapeArg("m")},
    symbols=["b", "m"],
    constraints=["b <= 1024", "m <= 1024"],
    instances=[{"b": 32, "m": 32}],
    grid=[1],
    block=["b"],
)
