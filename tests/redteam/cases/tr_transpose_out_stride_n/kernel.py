"""2-D transpose out = x.T over 32 x 32 tiles. The output row stride is N (the input's) instead of M:
only square matrices come out right, and for M != N the stores land outside their rows (and past the
tensor when N > M)."""

import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * N + rm[:, None], tile, mask=mask)
