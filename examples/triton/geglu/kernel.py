"""GeGLU with the exact (erf) GELU: out = gelu(a) * b = 0.5 * a * (1 + erf(a / sqrt(2))) * b."""

import triton
import triton.language as tl


@triton.jit
def geglu_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    g = 0.5 * a * (1 + tl.erf(a * 0.7071067811865476))
    tl.store(out_ptr + offs, g * b, mask=mask)
