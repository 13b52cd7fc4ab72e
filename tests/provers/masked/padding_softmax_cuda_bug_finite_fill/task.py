import torch

from larkc import Task


def reference(scores: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    return torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)


task = Task(
    source="kernel.cu",
    kernel="padded_softmax",
    reference=reference,
    inputs={"scores": "f32[rows, keys]", "keep": "bool[rows, keys]"},
    outputs={"probs": "f32[rows, keys]"},
    bindings={"n_keys": "keys"},
    symbols=["rows", "keys"],
    constraints=["keys <= 32", "rows <= 65535"],
    instances=[{"rows": 2, "keys": 3}],
    grid=["rows"],
    block=[32],
    tolerance={"rtol": 1e-4, "atol": 1e-6},
)
