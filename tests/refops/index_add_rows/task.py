"""index_add_ of source rows into the rows an index names (duplicates summed): a reference with
``Tensor.index_add_``. The index takes two values, so verify decides it case by case."""

import torch

from larkc import Task


def reference(out: torch.Tensor, index: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
    return out.index_add_(0, index, source)


task = Task(
    name="index_add_rows",
    source="kernel.cu",
    kernel="index_add_rows_kernel",
    reference=reference,
    inputs={
        "out": "f32[2, hidden_size]",
        "index": "i64[num_src_rows] in [0, 2)",
        "source": "f32[num_src_rows, hidden_size]",
    },
    outputs={"out": "f32[2, hidden_size]"},
    symbols=["num_src_rows", "hidden_size"],
    constraints=["num_src_rows <= 4", "hidden_size <= 4096"],
    instances=[{"num_src_rows": 1, "hidden_size": 3}, {"num_src_rows": 3, "hidden_size": 5}],
    grid=["cdiv(num_src_rows * hidden_size, 128)"],
    block=[128],
)
