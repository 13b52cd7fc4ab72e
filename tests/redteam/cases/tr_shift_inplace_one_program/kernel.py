"""Shift a short sequence right by one in place (x[i] = x[i - 1] for i >= 1), in one program: every lane
loads its left neighbour, then stores. Triton orders nothing between lanes for global memory: a lane of
another warp may store x[i - 1] before lane i has loaded it (a write-after-read race inside a program)."""

import triton
import triton.language as tl


@triton.jit
def shift_right_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = (offs >= 1) & (offs < n)
    prev = tl.load(x_ptr + offs - 1, mask=m)
    tl.store(x_ptr + offs, prev, mask=m)
