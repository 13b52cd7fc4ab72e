"""Attention probabilities with a boolean attention mask (True: the query must not attend to that key).
The mask is read the wrong way round: the keys it blocks are the ones attended to."""

import triton
import triton.language as tl


@triton.jit
def masked_attn_probs_kernel(scores_ptr, mask_ptr, probs_ptr, n_keys, stride_row, sm_scale, BLOCK_K: tl.constexpr):  # noqa: N803 (Triton spells constexprs in capitals)
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_K)
    valid = offs < n_keys
    s = tl.load(scores_ptr + row * stride_row + offs, mask=valid, other=0.0) * sm_scale
    blocked = tl.load(mask_ptr + row * stride_row + offs, mask=valid, other=1)
    s = tl.where(blocked, s, -float("inf"))  # the mask read as "may attend"
    s_max = tl.max(s, axis=0)
    num = tl.exp(s - s_max)
    den = tl.sum(num, axis=0)
    tl.store(probs_ptr + row * stride_row + offs, num / den, mask=valid)
