"""y[r, :] = x[r, :] * s[r], one program per row. The row offset row * n_cols is computed in int32
(program_id and n_cols are both int32): it wraps once rows * n_cols exceeds 2^31 - 1."""

import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, s_ptr, y_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    scale = tl.load(s_ptr + row)
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, x * scale, mask=mask)
