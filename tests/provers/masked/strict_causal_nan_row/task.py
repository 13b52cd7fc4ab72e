import torch

from larkc import Task


def reference(scores: torch.Tensor) -> torch.Tensor:
    t = scores.shape[0]
    not_before = torch.ones(t, t, dtype=torch.bool).triu()  # j >= i: masked, so row 0 is fully masked
    return scores.masked_fill(not_before, float("-inf")).softmax(dim=-1)


task = Task(
    source="kernel.py",
    kernel="strict_causal_softmax",
    reference=reference,
    inputs={"scores": "f32[t, t]"},
    outputs={"out": "f32[t, t]"},
    bindings={"scores_ptr": "scores", "out_ptr": "out", "seq_len": "t", "BLOCK_N": "next_pow2(t)"},
    symbols=["t"],
    constraints=["t <= 1024"],
    instances=[{"t": 4}, {"t": 7}],
    grid=["t"],
    block=[1],
)
