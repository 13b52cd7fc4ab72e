"""A Triton epilogue after a PyTorch linear layer: out = x * sigmoid(x) (SiLU), one block of BLOCK per program."""

import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask)
    y = x * tl.sigmoid(x)
    tl.store(out_ptr + offs, y, mask=mask)
