"""2-D bias add out[m, n] = x[m, n] + b[n] over BLOCK_M x BLOCK_N tiles, masked in both dimensions."""

import triton
import triton.language as tl


@triton.jit
def add_bias_2d_kernel(x_ptr, b_ptr, out_ptr, M, N, stride_m, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_m + rn[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    tl.store(out_ptr + rm[:, None] * stride_m + rn[None, :], x + b[None, :], mask=mask)
