import torch

from larkc import Task


def reference(x: torch.Tensor) -> torch.Tensor:
    return torch.argmax(x, dim=-1)


task = Task(
    expected_failure="mismatch",
    source="kernel.cu",
    kernel="row_argmax",
    reference=reference,
    inputs={"x": "f32[rows, cols]"},
    outputs={"idx": "i64[rows]"},
    symbols=["rows", "cols"],
    constraints=["cols <= 4096", "rows <= 65536"],
    instances=[{"rows": 3, "cols": 5}, {"rows": 2, "cols": 9}],
    grid=["cdiv(rows, 64)"],
    block=[64],
)
