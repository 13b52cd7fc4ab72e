"""Shared-memory transpose with a padded 32x33 tile and 32x8 blocks looping over the tile."""

import torch

from larkc import Task


def reference(idata: torch.Tensor) -> torch.Tensor:
    return idata.t().contiguous()


task = Task(
    name="transpose_shared",
    source="kernel.cu",
    kernel="transpose_shared",
    reference=reference,
    inputs={"idata": "f32[rows, cols]"},
    outputs={"odata": "f32[cols, rows]"},
    symbols=["rows", "cols"],
    constraints=["rows <= 8192", "cols <= 8192"],
    instances=[
        {"rows": 1, "cols": 1},
        {"rows": 33, "cols": 70},
        {"rows": 64, "cols": 64},
        {"rows": 100, "cols": 9},
    ],
    grid=["cdiv(cols, 32)", "cdiv(rows, 32)"],
    block=[32, 8],
)
