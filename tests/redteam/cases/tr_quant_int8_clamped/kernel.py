"""Per-tensor int8 quantisation, q = int8(clamp(x * inv_scale, -128, 127)) (truncating, as .to does): every
conversion is of a value in range."""

import triton
import triton.language as tl


@triton.jit
def quantize_kernel(x_ptr, q_ptr, inv_scale, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n_elements
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(q_ptr + offs, tl.minimum(tl.maximum(x * inv_scale, -128.0), 127.0).to(tl.int8), mask=m)
