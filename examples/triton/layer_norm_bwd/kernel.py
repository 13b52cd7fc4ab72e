"""Layer norm backward, one row per program (rows of at most BLOCK columns): dx from the saved mean and
1/std, and the weight and bias gradients accumulated over rows with tl.atomic_add (dw, db start at 0)."""

import triton
import triton.language as tl


@triton.jit
def layer_norm_bwd(X, DY, W, Mean, Rstd, DX, DW, DB, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0)
    w = tl.load(W + cols, mask=mask, other=0.0)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + row * stride + cols, dx, mask=mask)
    tl.atomic_add(DW + cols, dy * xhat, mask=mask)
    tl.atomic_add(DB + cols, dy, mask=mask)
