"""torch.roll(x, 1): out[i] = x[(i - 1) mod n], as (i + n - 1) % n: the dividend is never negative, so
Triton's C-style integer % and Python's agree."""

import triton
import triton.language as tl


@triton.jit
def roll1_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    src = (offs + n - 1) % n
    tl.store(out_ptr + offs, tl.load(x_ptr + src, mask=mask), mask=mask)
