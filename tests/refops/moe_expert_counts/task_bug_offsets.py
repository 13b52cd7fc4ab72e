"""Tokens per expert and the experts' start offsets (MoE align's counting step): a reference that counts
with ``bincount`` and sums the counts with ``cumsum``."""

import torch

from larkc import Task

NUM_EXPERTS = 8


def reference(topk_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    counts = torch.bincount(topk_ids.flatten(), minlength=NUM_EXPERTS).to(torch.int32)
    cumsum = torch.zeros(NUM_EXPERTS + 1, dtype=torch.int32)
    cumsum[1:] = torch.cumsum(counts, 0)
    return counts, cumsum


task = Task(
    name="moe_expert_counts_bug_offsets",
    source="kernel_bug_offsets.cu",
    kernel="count_and_sort_expert_tokens_kernel",
    reference=reference,
    inputs={"topk_ids": "i32[num_tokens, 2] in [0, 8)"},
    outputs={"expert_counts": "i32[8]", "cumsum": "i32[9]"},
    bindings={"num_experts": 8, "numel": "num_tokens * 2"},
    symbols=["num_tokens"],
    constraints=["num_tokens <= 4096"],
    instances=[{"num_tokens": 1}, {"num_tokens": 5}, {"num_tokens": 40}],
    grid=[1],
    block=[128],
)
