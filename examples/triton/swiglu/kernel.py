"""SwiGLU: out = silu(a) * b over rows of n_cols, a and b the two halves of the input row."""

import triton
import triton.language as tl


@triton.jit
def _silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def swiglu_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    base = x_ptr + row * 2 * n_cols
    a = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(base + n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    out = _silu(a) * b
    tl.store(out_ptr + row * n_cols + cols, out.to(out_ptr.dtype.element_ty), mask=mask)
