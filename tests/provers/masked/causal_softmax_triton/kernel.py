"""Causal softmax over the rows of a square score matrix: one program per row, the future masked to -inf."""

import triton
import triton.language as tl


@triton.jit
def causal_softmax_kernel(scores_ptr, out_ptr, seq_len, stride, BLOCK_N: tl.constexpr):  # noqa: N803 (Triton spells constexprs in capitals)
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    in_row = offs < seq_len
    s = tl.load(scores_ptr + row * stride + offs, mask=in_row, other=-float("inf"))
    s = tl.where(offs <= row, s, float("-inf"))
    row_max = tl.max(s, axis=0)
    num = tl.exp(s - row_max)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * stride + offs, num / den, mask=in_row)
