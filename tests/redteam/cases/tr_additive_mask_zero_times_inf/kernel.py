"""Attention-score masking as an additive bias s + (1 - keep) * -inf: where keep is 1 the bias is
0 * -inf = NaN, so every kept score becomes NaN (masked_fill keeps it)."""

import triton
import triton.language as tl


@triton.jit
def mask_scores_kernel(s_ptr, keep_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    s = tl.load(s_ptr + offs, mask=mask, other=0.0)
    keep = tl.load(keep_ptr + offs, mask=mask, other=0).to(tl.float32)
    tl.store(out_ptr + offs, s + (1.0 - keep) * float("-inf"), mask=mask)
