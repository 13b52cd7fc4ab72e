"""Keep the even elements (x[::2]): each lane k of a program loads x[2k] and stores out[k]."""

import triton
import triton.language as tl


@triton.jit
def downsample2_kernel(x_ptr, out_ptr, n_out, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_out
    x = tl.load(x_ptr + 2 * offsets, mask=mask)
    tl.store(out_ptr + offsets, x, mask=mask)
