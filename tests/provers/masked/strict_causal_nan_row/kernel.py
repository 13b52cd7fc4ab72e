"""Softmax of each row over the strictly earlier positions: row 0 has none, every score is -inf and the
row is NaN (-inf - -inf), as torch computes it."""

import triton
import triton.language as tl


@triton.jit
def strict_causal_softmax(scores_ptr, out_ptr, seq_len, BLOCK_N: tl.constexpr):  # noqa: N803 (Triton spells constexprs in capitals)
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    valid = offs < seq_len
    s = tl.load(scores_ptr + row * seq_len + offs, mask=valid & (offs < row), other=float("-inf"))
    row_max = tl.max(s, axis=0)
    num = tl.exp(s - row_max)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * seq_len + offs, num / den, mask=valid)
