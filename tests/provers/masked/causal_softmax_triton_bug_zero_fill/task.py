import torch

from larkc import Task


def reference(scores: torch.Tensor) -> torch.Tensor:
    n = scores.shape[-1]
    future = torch.triu(torch.ones(n, n, dtype=torch.bool, device=scores.device), diagonal=1)
    return torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)


task = Task(
    expected_failure="mismatch",
    source="kernel.py",
    kernel="causal_softmax_kernel",
    reference=reference,
    inputs={"scores": "f32[n, n]"},
    outputs={"out": "f32[n, n]"},
    bindings={"scores_ptr": "scores", "out_ptr": "out", "seq_len": "n", "stride": "n", "BLOCK_N": "next_pow2(n)"},
    symbols=["n"],
    constraints=["n <= 1024"],
    instances=[{"n": 5}, {"n": 8}],
    grid=["n"],
    block=[1],
)
