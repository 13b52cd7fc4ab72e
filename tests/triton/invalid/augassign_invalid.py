# params: x=f32*
# constexprs:
# error: augassign_invalid.py:13:31: error: name BLOCK is assigned by `BLOCK *= 2` (augassign_invalid.py:9:1): a @triton.jit function cannot use it
import triton
import triton.language as tl

BLOCK = 64
# was read as 64 before: the update was skipped
BLOCK *= 2

@triton.jit
def k(x):
    tl.store(x + tl.arange(0, BLOCK), 1.0)
