"""RMS normalisation in two launches (compute, then normalise), with a scalar the host computes (1 / d)."""

import torch

from larkc.tasks import KernelLaunch, ScalarExpr, Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt((x * x).mean(dim=-1, keepdim=True) + 1e-6)


task = Task(
    name="rms_norm_two_kernels",
    source="kernel.cu",
    launches=(
        KernelLaunch(kernel="row_sum_squares", grid=["rows"], block=[128]),
        KernelLaunch(
            kernel="normalise_rows",
            grid=["cdiv(rows * d, 256)"],
            block=[256],
            bindings={"inv_d": ScalarExpr("1 / d"), "eps": 1e-6},
        ),
    ),
    reference=reference,
    inputs={"x": "f32[rows, d]"},
    outputs={"out": "f32[rows, d]"},
    scratch={"sumsq": "f32[rows]"},
    symbols=["rows", "d"],
    constraints=["rows * d <= 16777216"],
    instances=[{"rows": 1, "d": 1}, {"rows": 3, "d": 100}, {"rows": 5, "d": 300}],
    tolerance={"rtol": 2e-5, "atol": 2e-5},
)
