"""2-D transpose out = x.T over 32 x 32 tiles: the tile is loaded with the input's row stride N and
stored with the output's, M."""

import triton
import triton.language as tl


@triton.jit
def transpose_kernel(x_ptr, out_ptr, M, N, BLOCK: tl.constexpr):
    rm = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    rn = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(out_ptr + rn[None, :] * M + rm[:, None], tile, mask=mask)
