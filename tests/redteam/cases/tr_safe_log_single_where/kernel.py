"""A safe log written with one where around the log, whose guard tests x >= 0 instead of x > 0: at
x = 0 the selected log is -inf where the reference gives 0."""

import triton
import triton.language as tl


@triton.jit
def safe_log_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=1.0)
    y = tl.where(x >= 0.0, tl.log(x), 0.0)
    tl.store(y_ptr + offsets, y, mask=mask)
