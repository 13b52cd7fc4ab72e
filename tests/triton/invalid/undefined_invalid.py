# params: x=f32*
# constexprs:
# error: undefined_invalid.py:10:17: error: name y is not defined (in a @triton.jit function)
import triton
import triton.language as tl


@triton.jit
def k(x):
    tl.store(x, y)
