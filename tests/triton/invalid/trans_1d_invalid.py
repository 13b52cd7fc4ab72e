# params: x=f32*
# constexprs:
# error: trans_1d_invalid.py:11:36: error: tl.trans of a 0- or 1-dimensional tensor
import triton
import triton.language as tl


@triton.jit
def k(x):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(x + tl.arange(0, 16), tl.trans(v))
