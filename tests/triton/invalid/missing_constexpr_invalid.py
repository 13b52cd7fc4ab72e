# params: x=f32*
# constexprs:
# error: missing_constexpr_invalid.py:9:10: error: no value for constexpr parameter BLOCK of k
import triton
import triton.language as tl


@triton.jit
def k(x, BLOCK: tl.constexpr):
    tl.store(x + tl.arange(0, BLOCK), 0.0)
