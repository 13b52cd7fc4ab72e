# params: x=f32*
# constexprs:
# error: combine_control_invalid.py:11:5: error: unsupported if in combine function pick: combine functions are straight-line code on scalars
import triton
import triton.language as tl


@triton.jit
def pick(a, b):
    c = a
    if b > a:
        c = b
    return c


@triton.jit
def k(x):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(x, tl.reduce(v, 0, pick))
