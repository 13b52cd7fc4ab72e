"""Attention-style masked softmax over rows: masked scores become -inf before the max (probability 0),
and a fully masked row is NaN, as torch's masked_fill(-inf).softmax gives."""

import triton
import triton.language as tl


@triton.jit
def masked_softmax_kernel(s_ptr, m_ptr, p_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inb = cols < n_cols
    s = tl.load(s_ptr + row * n_cols + cols, mask=inb, other=float("-inf"))
    masked = tl.load(m_ptr + row * n_cols + cols, mask=inb, other=1).to(tl.int1)
    s = tl.where(masked, float("-inf"), s)
    e = tl.exp(s - tl.max(s, axis=0))
    tl.store(p_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=inb)
