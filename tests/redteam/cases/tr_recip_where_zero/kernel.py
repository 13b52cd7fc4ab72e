"""Safe reciprocal: 1 / x where x != 0, else 0. tl.where evaluates both sides, so 1 / 0 is computed for
zero lanes and discarded (inf in IEEE arithmetic, never stored)."""

import triton
import triton.language as tl


@triton.jit
def safe_recip_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.where(x != 0.0, 1.0 / x, 0.0)
    tl.store(y_ptr + offs, y, mask=mask)
