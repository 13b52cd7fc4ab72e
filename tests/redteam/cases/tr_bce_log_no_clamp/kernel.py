"""Elementwise binary cross-entropy without the log clamp: where p = 1 and t = 1 the second term is
0 * log(0) = 0 * -inf = NaN (and p = 0 gives inf). F.binary_cross_entropy clamps each log at -100."""

import triton
import triton.language as tl


@triton.jit
def bce_kernel(p_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.5)
    t = tl.load(t_ptr + offs, mask=mask, other=0.0)
    loss = -(t * tl.log(p) + (1.0 - t) * tl.log(1.0 - p))
    tl.store(out_ptr + offs, loss, mask=mask)
