"""The sum of a vector in two launches: per-block partial sums, then one block summing the partials."""

import torch

from larkc.tasks import KernelLaunch, Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum().reshape(1)


task = Task(
    name="two_pass_sum",
    source="kernel.cu",
    launches=(
        KernelLaunch(kernel="block_partial_sums", grid=["cdiv(n, 256)"], block=[256]),
        KernelLaunch(kernel="sum_partials", grid=[1], block=[256], bindings={"num_partials": "cdiv(n, 256)"}),
    ),
    reference=reference,
    inputs={"x": "f32[n]"},
    outputs={"out": "f32[1]"},
    scratch={"partials": "f32[cdiv(n, 256)]"},
    symbols=["n"],
    constraints=["n <= 16777216"],
    instances=[{"n": 1}, {"n": 300}, {"n": 1000}, {"n": 4099}, {"n": 70000}],
)
