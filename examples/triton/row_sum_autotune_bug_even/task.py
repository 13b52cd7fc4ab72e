import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=-1)


# BLOCK_N comes from each @triton.autotune configuration and EVEN_N from the heuristic: no binding.
# Seeded bug: EVEN_N tests n_cols % 16, so BLOCK_N = 32 and 64 load unmasked past the end of 48-element rows.
# The first configuration (BLOCK_N = 16) is correct: only checking every configuration finds it
# (`larkc run` and `larkc verify` check every configuration and name the failing ones).
task = Task(
    expected_failure="oob",
    source="kernel.py",
    kernel="row_sum_kernel",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    outputs={"s": "f32[r]"},
    bindings={"x_ptr": "x", "out_ptr": "s", "stride": "d", "n_cols": "d"},
    symbols=["r", "d"],
    constraints=["d <= 4096", "r <= 65536"],
    instances=[{"r": 3, "d": 48}, {"r": 2, "d": 64}, {"r": 4, "d": 50}],
    grid=["r"],
    block=[1],
)
