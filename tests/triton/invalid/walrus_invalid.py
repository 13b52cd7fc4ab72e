# params: x=f32*
# constexprs:
# error: walrus_invalid.py:12:31: error: name BLOCK is assigned by `(BLOCK := 128)` (walrus_invalid.py:8:7): a @triton.jit function cannot use it
import triton
import triton.language as tl

BLOCK = 64
_x = (BLOCK := 128)  # was read as 64 before: a walrus at module level rebinds BLOCK

@triton.jit
def k(x):
    tl.store(x + tl.arange(0, BLOCK), 1.0)
