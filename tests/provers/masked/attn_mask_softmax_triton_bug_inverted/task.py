import torch

from larkc import Task


def reference(scores: torch.Tensor, attn_mask: torch.Tensor) -> torch.Tensor:
    scores = scores * 0.125
    return scores.masked_fill(attn_mask, float("-inf")).softmax(dim=-1)


task = Task(
    source="kernel.py",
    kernel="masked_attn_probs_kernel",
    reference=reference,
    inputs={"scores": "f32[q, k]", "attn_mask": "bool[q, k]"},
    outputs={"probs": "f32[q, k]"},
    bindings={
        "scores_ptr": "scores",
        "mask_ptr": "attn_mask",
        "probs_ptr": "probs",
        "n_keys": "k",
        "stride_row": "k",
        "sm_scale": 0.125,
        "BLOCK_K": "next_pow2(k)",
    },
    symbols=["q", "k"],
    constraints=["k <= 4096", "q <= 65535"],
    instances=[{"q": 2, "k": 3}],
    grid=["q"],
    block=[1],
    tolerance={"rtol": 1e-4, "atol": 1e-6},
)
