"""Row logsumexp, one program per row, padding lanes at -inf: they drop out of the max and contribute
exp(-inf) = 0 to the sum."""

import triton
import triton.language as tl


@triton.jit
def logsumexp_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf"))
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    tl.store(out_ptr + row, m + tl.log(s))
