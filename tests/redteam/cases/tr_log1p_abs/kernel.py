"""Symmetric log compression sign(x) * log(1 + |x|): the argument of tl.log is at least 1."""

import triton
import triton.language as tl


@triton.jit
def symlog_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    mag = tl.log(1.0 + tl.abs(x))
    tl.store(y_ptr + offs, tl.where(x < 0, -mag, mag), mask=mask)
