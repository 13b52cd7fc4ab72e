"""Sum of all elements: each program reduces BLOCK elements and adds its partial sum to out[0] with
tl.atomic_add (out must start at zero)."""

import triton
import triton.language as tl


@triton.jit
def total_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(x, axis=0))
