"""sqrt(max(x - 1, 0)): the clamp keeps the argument of tl.sqrt non-negative."""

import triton
import triton.language as tl


@triton.jit
def hinge_sqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.sqrt(tl.maximum(x - 1.0, 0.0)), mask=mask)
