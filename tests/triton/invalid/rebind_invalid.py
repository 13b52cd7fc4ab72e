# params: x=f32*
# constexprs:
# error: rebind_invalid.py:15:31: error: name WIDTH is computed from BLOCK before `BLOCK = 128` rebinds it (rebind_invalid.py:11:1): a @triton.jit function cannot use it
import triton
import triton.language as tl

BLOCK = 64
# WIDTH is BLOCK as it is here (64): a later rebinding of BLOCK must not change it
WIDTH = BLOCK
# was read as WIDTH = 128 before: module constants were evaluated in the final environment
BLOCK = 128

@triton.jit
def k(x):
    tl.store(x + tl.arange(0, WIDTH), 1.0)
