"""Rotary embedding (NeoX style) on q of shape (tokens, heads, head_dim): the two halves of each head
are rotated by the token's cos/sin (cache of shape (tokens, head_dim / 2))."""

import triton
import triton.language as tl


@triton.jit
def rotary_kernel(
    q_ptr, cos_ptr, sin_ptr, out_ptr, stride_tok, stride_head, n_heads, HALF: tl.constexpr, HEADS: tl.constexpr
):
    tok = tl.program_id(0)
    heads = tl.arange(0, HEADS)
    d = tl.arange(0, HALF)
    hmask = heads < n_heads
    c = tl.load(cos_ptr + tok * HALF + d)
    s = tl.load(sin_ptr + tok * HALF + d)
    offs = tok * stride_tok + heads[:, None] * stride_head + d[None, :]
    m = hmask[:, None]
    x1 = tl.load(q_ptr + offs, mask=m, other=0.0)
    x2 = tl.load(q_ptr + offs + HALF, mask=m, other=0.0)
    tl.store(out_ptr + offs, x1 * c[None, :] - x2 * s[None, :], mask=m)
    tl.store(out_ptr + offs + HALF, x2 * c[None, :] + x1 * s[None, :], mask=m)
