# params: x=f32*
# constexprs:
# error: combine_arity_invalid.py:16:36: error: combine function add3 must take 2 arguments for 1 operand(s), got 3
import triton
import triton.language as tl


@triton.jit
def add3(a, b, c):
    return a + b + c


@triton.jit
def k(x):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(x + tl.arange(0, 16), tl.associative_scan(v, 0, add3))
