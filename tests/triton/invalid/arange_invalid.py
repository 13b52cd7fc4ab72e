# params: x=f32*
# constexprs: BLOCK=24
# error: arange_invalid.py:10:9: error: arange's range must be a power of 2, got 24
import triton
import triton.language as tl


@triton.jit
def k(x, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(x + i, 0.0)
