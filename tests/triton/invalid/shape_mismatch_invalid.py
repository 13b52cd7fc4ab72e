# params: x=f32*
# constexprs:
# error: shape_mismatch_invalid.py:12:9: error: cannot broadcast shapes [16] and [32]
import triton
import triton.language as tl


@triton.jit
def k(x):
    a = tl.arange(0, 16)
    b = tl.arange(0, 32)
    c = a + b
    tl.store(x + c, 0.0)
