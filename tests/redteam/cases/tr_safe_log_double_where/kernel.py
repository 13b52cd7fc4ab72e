"""The double-where idiom for a safe log (as autodiff-friendly code writes it): the inner where keeps the
argument of tl.log positive on every lane, the outer one selects 0 where x <= 0."""

import triton
import triton.language as tl


@triton.jit
def safe_log_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)
    pos = x > 0.0
    safe = tl.where(pos, x, 1.0)
    y = tl.where(pos, tl.log(safe), 0.0)
    tl.store(y_ptr + offsets, y, mask=mask)
