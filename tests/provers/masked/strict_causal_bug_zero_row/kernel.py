"""Softmax over the strictly earlier positions, guarding the fully masked row as attention kernels do:
row 0 is written as zeros, where torch's reference is NaN."""

import triton
import triton.language as tl


@triton.jit
def strict_causal_softmax(scores_ptr, out_ptr, seq_len, BLOCK_N: tl.constexpr):  # noqa: N803 (Triton spells constexprs in capitals)
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_N)
    valid = offs < seq_len
    s = tl.load(scores_ptr + row * seq_len + offs, mask=valid & (offs < row), other=float("-inf"))
    row_max = tl.max(s, axis=0)
    row_max = tl.where(row_max == float("-inf"), 0.0, row_max)
    num = tl.exp(s - row_max)
    den = tl.sum(num, axis=0)
    den = tl.where(den == 0.0, 1.0, den)
    tl.store(out_ptr + row * seq_len + offs, num / den, mask=valid)
