# ruff: noqa: N803, N806 - the library's own names (Q, BLOCK_SIZE)
"""A launcher written the way Unsloth writes its kernels (``unsloth/kernels/rope_embedding.py``): the
rotary embedding applied to Q in place, the launcher returning Q's view; the block size from
``calculate_settings(head_dim // 2)``; heads in groups per program; the launch under
``torch.cuda.device(Q.device)`` with the device queried first. Read by
``tests/triton/test_triton_launcher_library.py``; larkc captures it (the kernel never runs)."""

import torch
import triton
import triton.language as tl

ROPE_GROUP_SIZE: int = 4
MAX_FUSED_SIZE: int = 65536
torch_gpu_device = torch.cuda.device


def calculate_settings(n: int) -> tuple[int, int]:
    BLOCK_SIZE: int = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the maximum CUDA blocksize.")
    num_warps: int = 4
    if BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


@triton.jit
def _rope_embedding(
    Q,
    Q_row_stride,
    cos,
    cos_row_stride,
    sin,
    sin_row_stride,
    seqlen,
    head_dim: tl.constexpr,
    n_heads: tl.constexpr,
    BACKWARD_PASS: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    """Q * cos + rotate_half(Q) * sin, in place, ROPE_GROUP_SIZE heads per program."""
    ROPE_GROUP_SIZE: tl.constexpr = 4
    row_position = tl.program_id(0)
    group_head_position = tl.program_id(1)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    half_head_dim = head_dim // 2
    mask = col_offsets < half_head_dim

    sin1 = tl.load(sin + (row_position % seqlen) * sin_row_stride + half_head_dim * 0 + col_offsets, mask=mask, other=0)
    cos1 = tl.load(cos + (row_position % seqlen) * cos_row_stride + half_head_dim * 0 + col_offsets, mask=mask, other=0)

    if BACKWARD_PASS:
        sin1 = -sin1

    head_start = group_head_position * ROPE_GROUP_SIZE
    head_end = min((head_start + ROPE_GROUP_SIZE), n_heads)

    for k in range(head_start, head_end):
        offs_q1 = row_position * Q_row_stride + k * head_dim + col_offsets
        offs_q2 = row_position * Q_row_stride + k * head_dim + col_offsets + half_head_dim

        Q1 = tl.load(Q + offs_q1, mask=mask, other=0).to(sin1.dtype)
        Q2 = tl.load(Q + offs_q2, mask=mask, other=0).to(sin1.dtype)

        tl.store(Q + offs_q1, Q1 * cos1 - Q2 * sin1, mask=mask)
        tl.store(Q + offs_q2, Q2 * cos1 + Q1 * sin1, mask=mask)


def fast_rope_embedding(Q, cos, sin):
    """Q: [batch, seq_len, n_heads, head_dim]; cos, sin: [seq_len, head_dim // 2]. Q is updated in place."""
    batch, seq_len, n_heads, head_dim = Q.shape
    Q = Q.view(batch * seq_len, n_heads * head_dim)
    n_rows = Q.shape[0]
    assert seq_len <= cos.shape[0]

    BLOCK_SIZE, num_warps = calculate_settings(head_dim // 2)

    div, mod = divmod(n_heads, ROPE_GROUP_SIZE)
    n_groups = div + (mod != 0)

    device = torch.cuda.current_device()
    with torch_gpu_device(device):
        _rope_embedding[(n_rows, n_groups)](
            Q,
            Q.stride(0),
            cos,
            cos.stride(0),
            sin,
            sin.stride(0),
            seq_len,
            head_dim,
            n_heads,
            BACKWARD_PASS=False,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    return Q.view(batch, seq_len, n_heads, head_dim)
