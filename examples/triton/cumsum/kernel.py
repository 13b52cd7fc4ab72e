"""Row-wise inclusive prefix sum (``torch.cumsum(x, dim=-1)``), one row per program, rows of n_cols <= BLOCK."""

import triton
import triton.language as tl


@triton.jit
def row_cumsum_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    y = tl.cumsum(x, axis=0)
    tl.store(out_ptr + row * stride + cols, y, mask=mask)
