# ruff: noqa: N803, N806 - the libraries' own names (X_ptr, BLOCK_SIZE)
"""Kernels made and configured the way Triton libraries write them: made by calling ``triton.jit`` and
``triton.heuristics`` (Unsloth's cross entropy and RMSNorm backward), string constexprs compared in the
kernel (Liger's ``reduction: tl.constexpr``, the tutorials' ``ACTIVATION``), autotune configurations
built by a helper function with list comprehensions. Read by ``tests/triton/test_triton_made_kernels.py``."""

import itertools

import torch
import triton
import triton.language as tl


def _scaled_square(Y_ptr, X_ptr, n_cols, scale, SCALE: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(X_ptr + row * n_cols + cols, mask=mask, other=0.0)
    y = x * x
    if SCALE:
        y = y * scale
    tl.store(Y_ptr + row * n_cols + cols, y, mask=mask)


_scaled_square = triton.jit(_scaled_square)
_scaled_square = triton.heuristics({"SCALE": lambda args: bool(args["SCALE"])})(_scaled_square)


def scaled_square(X, scale=None):
    n_rows, n_cols = X.shape
    Y = torch.empty_like(X)
    _scaled_square[(n_rows,)](
        Y,
        X,
        n_cols,
        scale if scale is not None else 1.0,
        SCALE=scale is not None,
        BLOCK_SIZE=triton.next_power_of_2(n_cols),
    )
    return Y


@triton.jit
def _row_loss_kernel(Loss_ptr, X_ptr, n_cols, n_rows, reduction: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(X_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    loss = tl.sum(x * x, axis=0)
    if reduction == "mean":
        loss = loss / n_rows
    tl.store(Loss_ptr + row, loss)


def row_loss(X, reduction="mean"):
    n_rows, n_cols = X.shape
    loss = torch.empty(n_rows, dtype=X.dtype, device=X.device)
    _row_loss_kernel[(n_rows,)](loss, X, n_cols, n_rows, reduction=reduction, BLOCK_SIZE=triton.next_power_of_2(n_cols))
    return loss


def get_autotune_config():
    configs = [
        triton.Config({"BLOCK_SIZE": bs}, num_warps=nw) for bs, nw in itertools.product([32, 64], [4, 8]) if nw == 4
    ]
    for bs in range(7, 9):
        configs.append(triton.Config({"BLOCK_SIZE": 2**bs}, num_warps=8))
    return configs


@triton.autotune(configs=get_autotune_config(), key=["n_elements"])
@triton.jit
def _activation_kernel(Y_ptr, X_ptr, n_elements, ACTIVATION: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(X_ptr + offs, mask=mask, other=0.0)
    if ACTIVATION == "leaky_relu":
        x = tl.where(x >= 0, x, 0.01 * x)
    elif ACTIVATION == "relu":
        x = tl.maximum(x, 0.0)
    tl.store(Y_ptr + offs, x, mask=mask)
