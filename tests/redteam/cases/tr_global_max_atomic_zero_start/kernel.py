"""Global maximum with tl.atomic_max into out[0], which the host zero-fills (torch.zeros): for an input
whose elements are all negative the result stays 0."""

import triton
import triton.language as tl


@triton.jit
def global_max_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-float("inf"))
    tl.atomic_max(out_ptr, tl.max(x, axis=0))
