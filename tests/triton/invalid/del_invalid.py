# params: x=f32*
# constexprs:
# error: del_invalid.py:13:31: error: name BLOCK is assigned by `del BLOCK` (del_invalid.py:8:1): a @triton.jit function cannot use it
import triton
import triton.language as tl

BLOCK = 64
del BLOCK


@triton.jit
def k(x):
    tl.store(x + tl.arange(0, BLOCK), 1.0)
