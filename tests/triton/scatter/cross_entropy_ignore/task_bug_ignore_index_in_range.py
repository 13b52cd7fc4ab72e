"""The ignore index bound inside the label range: the branch is on data, and the verdict must not be
VERIFIED (the reference ignores -100, the kernel label 1)."""

import torch
import torch.nn.functional as F

from larkc import Task


def reference(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits, target, reduction="none", ignore_index=-100)


task = Task(
    source="kernel.py",
    kernel="cross_entropy_kernel",
    reference=reference,
    inputs={"logits": "f32[rows, vocab]", "target": "i64[rows] in [0, vocab)"},
    outputs={"loss": "f32[rows]"},
    bindings={
        "X_ptr": "logits",
        "X_stride": "vocab",
        "Y_ptr": "target",
        "loss_ptr": "loss",
        "n_cols": "vocab",
        "ignore_index": 1,  # the bug: the launcher passes another ignore index than the reference's
        "BLOCK_SIZE": "next_pow2(vocab)",
    },
    symbols=["rows", "vocab"],
    constraints=["rows <= 4096", "vocab <= 64"],
    instances=[{"rows": 2, "vocab": 3}],
    grid=["rows"],
    block=[1],
)
