"""torch.roll(x, 1): out[i] = x[(i - 1) mod n]. Written with Python's % in mind, where (-1) % n == n - 1;
but Triton's integer % follows C (the sign of the dividend): (0 - 1) % n == -1, and lane 0 of the first
program loads x[-1]."""

import triton
import triton.language as tl


@triton.jit
def roll1_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    src = (offs - 1) % n
    tl.store(out_ptr + offs, tl.load(x_ptr + src, mask=mask), mask=mask)
