"""Sum of all elements into out[0]: each program reduces its block and adds the partial into out[0]
with a load, an add and a store (no atomic). Programs of a grid of more than one race on out[0]."""

import triton
import triton.language as tl


@triton.jit
def sum_all_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + offsets, mask=offsets < n_elements, other=0.0)
    partial = tl.sum(x, axis=0)
    acc = tl.load(out_ptr)
    tl.store(out_ptr, acc + partial)
