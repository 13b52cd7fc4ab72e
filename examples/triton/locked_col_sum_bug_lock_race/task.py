import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return x.sum(dim=0)


task = Task(
    expected_failure="race",
    source="kernel.py",
    kernel="locked_col_sum_kernel",
    reference=reference,
    inputs={"x": "f32[r, d]"},
    outputs={"out": "f32[d]"},
    scratch={"lock": (("1",), "i32", "zeros"), "count": (("1",), "i32", "zeros")},
    bindings={
        "x_ptr": "x",
        "out_ptr": "out",
        "lock_ptr": "lock",
        "count_ptr": "count",
        "n_rows": "r",
        "n_cols": "d",
        "ROWS": 4,
        "BLOCK": "next_pow2(d)",
    },
    symbols=["r", "d"],
    constraints=["(r + 3) * d <= 2147483647"],  # rows past the end (masked) still compute their offset
    instances=[{"r": 10, "d": 20}, {"r": 16, "d": 33}],
    grid=["cdiv(r, 4)"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-4},
)
