"""Non-finite guard: infinities and NaN become 0, the other elements are scaled (a reference with
``isinf``/``isnan`` under ``torch.where``)."""

import torch

from larkc import ScalarArg, Task


def reference(input: torch.Tensor) -> torch.Tensor:
    bad = torch.isinf(input) | torch.isnan(input)
    return torch.where(bad, torch.zeros_like(input), input * 0.5)


task = Task(
    name="nonfinite_guard",
    source="kernel.cu",
    kernel="nonfinite_guard_kernel",
    reference=reference,
    inputs={"input": "f32[n]"},
    outputs={"out": "f32[n]"},
    bindings={"scale": ScalarArg(0.5), "num_elems": "n"},
    symbols=["n"],
    constraints=["n <= 1048576"],
    instances=[{"n": 1}, {"n": 37}, {"n": 1000}],
    grid=["min(cdiv(n, 256), 8)"],
    block=[256],
)
