"""RMS norm over rows that fit one block: y = x / sqrt(mean(x^2) + eps) * w, computed in float32 for
float16 input and output."""

import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, x_stride, y_stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    rstd = tl.rsqrt(ms + eps)
    y = x * rstd * w
    tl.store(y_ptr + row * y_stride + cols, y.to(tl.float16), mask=mask)
