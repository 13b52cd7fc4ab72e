# ruff: noqa: N803, N806 - the library's own names (X_ptr, BLOCK_SIZE)
"""RMSNorm forward, imports as ``liger_kernel/ops/rms_norm.py`` writes them."""

import operator

import torch
import triton
import triton.language as tl

from normlib.ops.utils import calculate_settings, compare_version
from normlib.utils import is_npu_available

if compare_version("triton", operator.ge, "3.0.0") and not is_npu_available():
    try:
        # typical import path with dispatch available
        from triton.language.extra.libdevice import rsqrt
    except ModuleNotFoundError:
        # for working with NGC containers
        from triton.language.extra.cuda.libdevice import rsqrt
else:
    from triton.language.math import rsqrt

try:
    from torch.distributed.tensor import DTensor as _DTensor
except Exception:
    _DTensor = ()


@triton.jit
def _rms_norm_forward_kernel(Y_ptr, X_ptr, W_ptr, stride, n_cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X_ptr + row * stride + cols, mask=mask, other=0.0)
    w = tl.load(W_ptr + cols, mask=mask, other=0.0)
    mean_square = tl.sum(x * x, axis=0) / n_cols
    rstd = rsqrt(mean_square + eps)
    tl.store(Y_ptr + row * stride + cols, x * rstd * w, mask=mask)


def rms_norm_forward(X, W, eps):
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    Y = torch.empty_like(X)
    _rms_norm_forward_kernel[(n_rows,)](Y, X, W, X.stride(0), n_cols, eps, BLOCK_SIZE=BLOCK_SIZE, num_warps=num_warps)
    return Y
