"""Scale a vector by a scalar read under a mask, and raise m[0] to the largest scaled value with an
atomic maximum (m starts at zero). Constructs no Triton example has: a masked scalar load,
tl.debug_barrier(), tl.atomic_max of floats."""

import triton
import triton.language as tl


@triton.jit
def scale_max_kernel(x_ptr, scale_ptr, out_ptr, m_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.load(scale_ptr, mask=n > 0, other=1.0)
    tl.debug_barrier()
    y = x * s
    tl.store(out_ptr + offs, y, mask=mask)
    tl.atomic_max(m_ptr, tl.max(tl.where(mask, y, 0.0), axis=0))
