"""y = x / sum(x) in one launch: every program adds its partial sum to a global total with tl.atomic_add
and then divides by the total it reads back. Other programs may not have added theirs yet."""

import triton
import triton.language as tl


@triton.jit
def normalize_kernel(x_ptr, total_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))
    total = tl.load(total_ptr)
    tl.store(y_ptr + offs, x / total, mask=mask)
