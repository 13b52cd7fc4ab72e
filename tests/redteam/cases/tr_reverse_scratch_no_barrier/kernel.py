"""Reverse each row (torch.flip(x, [-1])) for rows of at most BLOCK columns. The row goes through a
global scratch row: every lane stores its element, then loads the element another lane stored. Without
tl.debug_barrier() between the store and the load nothing orders the two lanes."""

import triton
import triton.language as tl


@triton.jit
def flip_rows_kernel(x_ptr, scratch_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(scratch_ptr + row * BLOCK + cols, x, mask=mask)
    rev = n_cols - 1 - cols
    y = tl.load(scratch_ptr + row * BLOCK + rev, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, y, mask=mask)
