"""sqrt(max(x - 1, 0)) by the NaN test idiom r != r: the root is NaN exactly where x < 1, and tl.where
replaces it by 0 there. Correct on a GPU."""

import triton
import triton.language as tl


@triton.jit
def hinge_sqrt_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    r = tl.sqrt(x - 1.0)
    tl.store(y_ptr + offs, tl.where(r != r, 0.0, r), mask=mask)  # noqa: PLR0124 - the NaN test idiom
