# ruff: noqa: N803, N806 - the libraries' own names (X, BLOCK_N)
"""Launchers whose grid function reads the autotune configuration, as Liger-Kernel's DyT and the Triton
matmul tutorial write them: ``grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]), M)``. Read by
``tests/triton/test_triton_launcher_library.py``; larkc captures them (the kernels never run)."""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK_N": bn}, num_warps=nw) for bn, nw in [(32, 1), (64, 2), (128, 4)]],
    key=["N"],
)
@triton.jit
def _tanh_affine_fwd_kernel(X, Y, Alpha, Gamma, Beta, N, BLOCK_N: tl.constexpr):
    col = tl.cast(tl.program_id(0), tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = col < N
    row_id = tl.cast(tl.program_id(1), tl.int64)
    alpha = tl.load(Alpha)
    gamma = tl.load(Gamma + col, mask=mask)
    beta = tl.load(Beta + col, mask=mask)
    x = tl.load(X + row_id * N + col, mask=mask)
    t = alpha * x
    th = 2 * tl.sigmoid(2 * t) - 1
    tl.store(Y + row_id * N + col, gamma * th + beta, mask=mask)


def tanh_affine_fwd(x, alpha, gamma, beta):
    shape = x.shape
    x = x.view(-1, shape[-1])
    M, N = x.shape
    y = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(N, meta["BLOCK_N"]), M)  # noqa: E731 - the library's spelling
    _tanh_affine_fwd_kernel[grid](x, y, alpha, gamma, beta, N)
    return y.view(*shape)


@triton.autotune(
    configs=[triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}) for bm in (16, 32) for bn in (16, 64)],
    key=["M", "N"],
)
@triton.jit
def _tile_scale_kernel(x_ptr, y_ptr, M, N, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs = rm[:, None] * N + rn[None, :]
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * scale, mask=mask)


def tile_scale(x):
    M, N = x.shape
    y = torch.empty_like(x)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)  # noqa: E731
    _tile_scale_kernel[grid](x, y, M, N, 0.5)
    return y


def tile_scale_short_grid(x):
    """The same kernel launched with one tile row too few whenever M is no multiple of BLOCK_M (``//``
    where ``cdiv`` was meant): the last rows of every configuration but an exact fit are never written."""
    M, N = x.shape
    y = torch.empty_like(x)
    grid = lambda META: ((M // META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)  # noqa: E731
    _tile_scale_kernel[grid](x, y, M, N, 0.5)
    return y
