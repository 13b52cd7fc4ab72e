"""out = x * y over a persistent grid (at most NUM_SMS programs, here 4). The author wrote the body for
the one-tile-per-program grid and forgot the loop over tiles: tiles beyond the grid are never done."""

import triton
import triton.language as tl


@triton.jit
def mul_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    a = tl.load(x_ptr + offs, mask=mask)
    b = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * b, mask=mask)
