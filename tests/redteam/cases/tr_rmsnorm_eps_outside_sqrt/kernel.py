"""RMSNorm (Llama style, x * rsqrt(mean(x^2) + eps) * w), one program per row, with the epsilon added
after the square root: x / (sqrt(mean(x^2)) + eps)."""

import triton
import triton.language as tl


@triton.jit
def rmsnorm_kernel(X, W, Y, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(X + row * n_cols + offs, mask=mask, other=0.0)
    w = tl.load(W + offs, mask=mask, other=0.0)
    rms = tl.sqrt(tl.sum(x * x, axis=0) / n_cols)
    tl.store(Y + row * n_cols + offs, x / (rms + eps) * w, mask=mask)
