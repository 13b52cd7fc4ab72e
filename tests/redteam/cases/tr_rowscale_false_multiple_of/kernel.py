"""y = x * s[row], one program per row, with the alignment hint of the tuned kernels: the row start is
declared a multiple of 16 elements so that Triton emits 128-bit accesses. The hint is a promise the
compiler does not check; it is false whenever n_cols % 16 != 0 (misaligned vector accesses)."""

import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(x_ptr, s_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    start = tl.multiple_of(row * n_cols, 16)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + start + cols, mask=mask, other=0.0)
    s = tl.load(s_ptr + row)
    tl.store(y_ptr + start + cols, x * s, mask=mask)
