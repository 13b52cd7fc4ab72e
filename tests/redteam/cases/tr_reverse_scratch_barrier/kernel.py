"""Reverse each row (torch.flip(x, [-1])) for rows of at most BLOCK columns. The row goes through a
global scratch row: every lane stores its element, tl.debug_barrier() makes the stores visible to the
whole program, then each lane loads the element another lane stored."""

import triton
import triton.language as tl


@triton.jit
def flip_rows_kernel(x_ptr, scratch_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    tl.store(scratch_ptr + row * BLOCK + cols, x, mask=mask)
    tl.debug_barrier()
    rev = n_cols - 1 - cols
    y = tl.load(scratch_ptr + row * BLOCK + rev, mask=mask)
    tl.store(y_ptr + row * n_cols + cols, y, mask=mask)
