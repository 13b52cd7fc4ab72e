"""TensorRT-LLM-style cumsum, enum-typed template arguments: the exclusive scan, raking algorithm."""

import torch

from larkc import Task


def reference(input: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(input, dim=-1).to(torch.int32) - input


task = Task(
    source="kernel.cu",
    kernel="cumsum_last_dim_kernel",
    template_args={
        "T": "int",
        "THREADS_PER_BLOCK": 128,
        "MODE": "ScanMode::kExclusive",
        "ALGORITHM": "cub::BLOCK_SCAN_RAKING",
    },
    reference=reference,
    inputs={"input": "i32[rows, length] in [0, 65536)"},
    outputs={"output": "i32[rows, length]"},
    bindings={"input_length": "length"},
    symbols=["rows", "length"],
    constraints=["length <= 128", "rows <= 4096"],
    instances=[{"rows": 2, "length": 128}, {"rows": 3, "length": 37}],
    grid=["rows"],
    block=[128],
)
