"""Out-of-place matrix transpose in BLOCK_M x BLOCK_N tiles: each program loads one tile, transposes it
with ``tl.trans`` and stores it at the mirrored position."""

import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tile = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N))
    out = tl.trans(tile)
    tl.store(y_ptr + rn[:, None] * stride_ym + rm[None, :], out, mask=(rn[:, None] < N) & (rm[None, :] < M))
