"""y = x + alpha * log(x), a log-boost switched off by alpha = 0: tl.log of x <= 0 is NaN or -inf, and
0 * NaN (0 * -inf) is NaN, so the kernel is not the identity there."""

import triton
import triton.language as tl


@triton.jit
def log_boost_kernel(x_ptr, y_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(y_ptr + offs, x + alpha * tl.log(x), mask=mask)
