"""tile_copy for every block size b: the kernel is safe only for b <= 64, its precondition."""

import torch

from larkc import ShapeArg, Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


task = Task(
    name="tile_copy",
    source="kernel.cu",
    kernel="tile_copy",
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"n": ShapeArg("n")},
    symbols=["n", "b"],
    constraints=["n <= 1048576", "b <= 1024"],
    instances=[{"n": 100, "b": 64}, {"n": 70, "b": 32}],
    grid=["cdiv(n, b)"],
    block=["b"],
)
