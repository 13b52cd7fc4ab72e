"""out = x + 1 with the mask-free fast path of many tuned kernels: a heuristic sets EVEN when the size
needs no masks. The heuristic tests n % 64, left over from when BLOCK was 64; with BLOCK = 128 a size
that is a multiple of 64 but not of 128 takes the unmasked path and runs past the end."""

import triton
import triton.language as tl


@triton.heuristics({"EVEN": lambda args: args["n"] % 64 == 0})
@triton.jit
def add_one_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, x + 1.0)
    else:
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(y_ptr + offs, x + 1.0, mask=mask)
