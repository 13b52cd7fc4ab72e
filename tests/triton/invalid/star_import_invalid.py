# params: x=f32*
# constexprs:
# error: star_import_invalid.py:12:5: error: name tl is possibly rebound by `from os.path import *` (star_import_invalid.py:8:1): a @triton.jit function cannot use it
import triton
import triton.language as tl

BLOCK = 64
from os.path import *  # noqa: E402, F403 - may rebind any name before it (tl, BLOCK)

@triton.jit
def k(x):
    tl.store(x + tl.arange(0, BLOCK), 1.0)
