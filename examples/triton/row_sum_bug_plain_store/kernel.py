"""Seeded bug: each program adds its partial sum to out[0] with a plain load and store instead of
tl.atomic_add, so programs race on out[0] (and updates are lost when they interleave)."""

import triton
import triton.language as tl


@triton.jit
def total_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    total = tl.load(out_ptr)
    tl.store(out_ptr, total + tl.sum(x, axis=0))
