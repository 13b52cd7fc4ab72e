"""Row-wise bias add, one program per row, columns in tiles of BLOCK: out[r, c] = x[r, c] + b[c].

The row's offset is computed in int64 (``tl.program_id(0).to(tl.int64)``), so ``row * stride`` cannot
wrap for any tensor of at most ``max_tensor_bytes``; the int32 version is
row_bias_bug_offset_overflow.
"""

import triton
import triton.language as tl


@triton.jit
def row_bias_kernel(x_ptr, b_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride
    out_row = out_ptr + row * stride
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0)
        tl.store(out_row + cols, x + b, mask=mask)
