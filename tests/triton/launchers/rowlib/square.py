# ruff: noqa: N803, N806 - the library's own names (X_ptr, BLOCK_SIZE)
"""y = x * x, row by row."""

import torch
import triton
import triton.language as tl

from .utils import calculate_settings


@triton.jit
def _square_kernel(Y_ptr, X_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X_ptr + row * stride + cols, mask=mask, other=0.0)
    tl.store(Y_ptr + row * stride + cols, x * x, mask=mask)


def square_forward(X):
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty_like(X)
    _square_kernel[(n_rows,)](Y, X, X.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y
