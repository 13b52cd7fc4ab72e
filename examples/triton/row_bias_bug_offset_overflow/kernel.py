"""Row-wise bias add, one program per row, columns in tiles of BLOCK: out[r, c] = x[r, c] + b[c].

Seeded bug (32-bit offset overflow at large shapes): the row's offset ``row * stride`` is computed in
int32 (``tl.program_id`` is int32, and Triton passes a stride below 2^31 as int32), so it wraps once
``rows * stride >= 2^31`` (8 GiB of float32), although every size fits int32 and every tensor fits
memory. Kernels that meet large shapes cast first: ``tl.program_id(0).to(tl.int64)``
(row_bias_overflow_free).
"""

import triton
import triton.language as tl


@triton.jit
def row_bias_kernel(x_ptr, b_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    out_row = out_ptr + row * stride
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0)
        tl.store(out_row + cols, x + b, mask=mask)
