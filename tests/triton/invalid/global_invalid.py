# params: x=f32*
# constexprs:
# error: global_invalid.py:17:31: error: name BLOCK is declared `global` in a function (line 9), which may rebind it (global_invalid.py:9:5): a @triton.jit function cannot use it
import triton
import triton.language as tl

BLOCK = 64
def _setup():
    global BLOCK
    BLOCK = 128
# was read as 64 before: the call's rebinding was not seen (called or not, BLOCK has no value)
_setup()


@triton.jit
def k(x):
    tl.store(x + tl.arange(0, BLOCK), 1.0)
