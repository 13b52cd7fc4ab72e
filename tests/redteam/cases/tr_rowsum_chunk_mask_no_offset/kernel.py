"""Row sums of long rows, one program per row, looping over the row in chunks of BLOCK. The chunk's
mask compares the lane index, not the column, with n_cols: on a ragged last chunk of a row longer than
BLOCK every lane is enabled, and the tail reads past the row (past the tensor on the last row)."""

import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    lanes = tl.arange(0, BLOCK)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * n_cols + start + lanes, mask=lanes < n_cols, other=0.0)
        acc += x
    tl.store(out_ptr + row, tl.sum(acc, axis=0))
