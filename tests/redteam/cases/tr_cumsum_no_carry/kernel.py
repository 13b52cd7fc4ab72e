"""Inclusive prefix sum of a vector with tl.cumsum, one program per BLOCK. Each program scans only its
own block: the carry from earlier blocks is missing once n > BLOCK (written for "short sequences")."""

import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.cumsum(x, axis=0), mask=mask)
