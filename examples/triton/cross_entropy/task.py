import torch

from larkc import Task


def reference(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.cross_entropy(logits, target, reduction="none")


task = Task(
    source="kernel.py",
    kernel="cross_entropy_fwd",
    reference=reference,
    inputs={"logits": "f32[r, v]", "target": "i64[r] in [0, v)"},
    outputs={"loss": "f32[r]"},
    bindings={
        "logits_ptr": "logits",
        "target_ptr": "target",
        "loss_ptr": "loss",
        "stride": "v",
        "n_cols": "v",
        "BLOCK": 64,
    },
    symbols=["r", "v"],
    constraints=["v <= 262144", "r * v <= 2147483647"],
    instances=[{"r": 4, "v": 150}, {"r": 2, "v": 64}, {"r": 3, "v": 1}],
    grid=["r"],
    block=[1],
    tolerance={"rtol": 1e-5, "atol": 1e-5},
)
