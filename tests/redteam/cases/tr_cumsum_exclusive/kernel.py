"""Exclusive prefix sum of a short vector (n <= BLOCK) in one program: the inclusive tl.cumsum minus
the element itself."""

import triton
import triton.language as tl


@triton.jit
def exclusive_cumsum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.cumsum(x, axis=0) - x, mask=mask)
