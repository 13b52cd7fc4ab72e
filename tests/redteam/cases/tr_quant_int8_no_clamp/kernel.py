"""Per-tensor int8 quantisation, q = int8(x * inv_scale) (truncating, as .to does). No clamp: a float
outside [-128, 127] converted to int8 is undefined (and differs between GPUs)."""

import triton
import triton.language as tl


@triton.jit
def quantize_kernel(x_ptr, q_ptr, inv_scale, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n_elements
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(q_ptr + offs, (x * inv_scale).to(tl.int8), mask=m)
