# ruff: noqa: N803 - the library's own names (X_ptr, BLOCK_SIZE)
"""GELU (tanh approximation) with the helper of the sibling ``utils``, whose ``tanh`` this file lacks."""

import triton
import triton.language as tl

from .utils import gelu_tanh_approx


@triton.jit
def gelu_kernel(Y_ptr, X_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    x = tl.load(X_ptr + offs, mask=offs < n, other=0.0)
    tl.store(Y_ptr + offs, gelu_tanh_approx(x), mask=offs < n)
