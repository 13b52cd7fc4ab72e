# params: x=f32*
# constexprs:
# error: syntax_invalid.py:10:20: error: Python syntax error: invalid syntax
import triton
import triton.language as tl


@triton.jit
def k(x):
    tl.store(x, 1 +* 2)
