"""Keep the even elements (x[::2]). Meant to load only even offsets; instead it loads every element
and stores lane k to out[k // 2], so lanes 2j and 2j + 1 of one program store different values to the
same address (which one lands is up to the hardware)."""

import triton
import triton.language as tl


@triton.jit
def downsample2_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets // 2, x, mask=mask)
