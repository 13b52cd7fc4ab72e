# params: x=f32*
# constexprs:
# error: import_rebind_invalid.py:13:31: error: name WIDTH is computed from BLOCK before `from math import e as BLOCK` rebinds it (import_rebind_invalid.py:9:1): a @triton.jit function cannot use it
import triton
import triton.language as tl

BLOCK = 64
WIDTH = BLOCK * 2
from math import e as BLOCK  # noqa: E402 - WIDTH stays 128 (it was computed from the new BLOCK)

@triton.jit
def k(x):
    tl.store(x + tl.arange(0, WIDTH), 1.0)
