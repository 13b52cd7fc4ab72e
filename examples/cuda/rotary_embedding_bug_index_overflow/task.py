"""Seeded bug: NeoX-style rotary embedding whose token offset ``token * num_heads * head_size`` is an
unsigned 32-bit product: it wraps once ``num_tokens * num_heads * head_size`` reaches 2^32, a size the
task allows (tensors up to 64 GiB). The small instances are correct (``larkc run`` passes);
``larkc verify`` refutes integer overflow with the smallest sizes at which it happens.

``positions`` must lie in ``[0, max_position)``: the kernel trusts them as serving code does.
"""

import torch

from larkc import Task


def reference(positions: torch.Tensor, query: torch.Tensor, cos_sin_cache: torch.Tensor) -> torch.Tensor:
    half = cos_sin_cache.shape[-1] // 2
    rot_dim = 2 * half
    cos_sin = cos_sin_cache[positions]  # [num_tokens, rot_dim]
    cos = cos_sin[:, None, :half]
    sin = cos_sin[:, None, half:]
    x1 = query[..., :half]
    x2 = query[..., half:rot_dim]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin, query[..., rot_dim:]], dim=-1)


task = Task(
    name="rotary_embedding_bug_index_overflow",
    source="kernel.cu",
    kernel="rotary_embedding_neox",
    template_args={"scalar_t": "float"},
    reference=reference,
    inputs={
        "positions": "i64[num_tokens] in [0, max_position)",
        "query": "f32[num_tokens, num_heads, head_size]",
        "cos_sin_cache": "f32[max_position, rot_dim]",
    },
    outputs={"out": "f32[num_tokens, num_heads, head_size]"},
    symbols=["num_tokens", "num_heads", "head_size", "rot_dim", "max_position"],
    constraints=[
        "rot_dim % 2 == 0",
        "rot_dim <= head_size",
        "head_size <= 256",
        "num_heads <= 64",
        "num_tokens <= 2147483647",
    ],
    instances=[
        {"num_tokens": 1, "num_heads": 1, "head_size": 2, "rot_dim": 2, "max_position": 1},
        {"num_tokens": 5, "num_heads": 4, "head_size": 64, "rot_dim": 64, "max_position": 32},
        {"num_tokens": 7, "num_heads": 3, "head_size": 80, "rot_dim": 32, "max_position": 16},
    ],
    grid=["num_tokens"],
    block=[128],
    expected_failure="overflow",
)
