# params: x=f32*
# constexprs:
# error: globals_invalid.py:13:5: error: name tl is possibly rebound by `globals()` (globals_invalid.py:9:1): a @triton.jit function cannot use it
import triton
import triton.language as tl

BLOCK = 64
# was read as 64 before: the update was skipped; after it any module name (tl too) may have changed
globals()["BLOCK"] = 128

@triton.jit
def k(x):
    tl.store(x + tl.arange(0, BLOCK), 1.0)
