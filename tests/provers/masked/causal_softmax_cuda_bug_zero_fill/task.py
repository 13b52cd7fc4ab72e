import torch

from larkc import Task


def reference(scores: torch.Tensor) -> torch.Tensor:
    n = scores.size(-1)
    causal = torch.tril(torch.ones(n, n, dtype=torch.bool, device=scores.device))
    scores = scores.masked_fill(~causal, float("-inf"))
    return torch.softmax(scores, dim=-1)


task = Task(
    expected_failure="mismatch",
    source="kernel.cu",
    kernel="causal_softmax",
    reference=reference,
    inputs={"scores": "f32[n, n]"},
    outputs={"out": "f32[n, n]"},
    symbols=["n"],
    constraints=["n <= 4096"],
    instances=[{"n": 6}, {"n": 40}],
    grid=["n"],
    block=[32],
)
