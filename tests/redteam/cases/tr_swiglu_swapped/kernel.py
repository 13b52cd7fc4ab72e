"""SwiGLU on a fused [gate | up] projection, out = silu(gate) * up. The halves were swapped when the
fused weight's layout changed: the kernel computes silu(up) * gate."""

import triton
import triton.language as tl


@triton.jit
def swiglu_fwd_kernel(gu_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    gate = tl.load(gu_ptr + row * 2 * n_cols + cols, mask=mask, other=0.0)
    up = tl.load(gu_ptr + row * 2 * n_cols + n_cols + cols, mask=mask, other=0.0)
    act = up * tl.sigmoid(up)
    tl.store(out_ptr + row * n_cols + cols, act * gate, mask=mask)
