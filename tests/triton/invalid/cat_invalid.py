# params: x=f32*
# constexprs:
# error: cat_invalid.py:11:36: error: unsupported Triton function: cat()
import triton
import triton.language as tl


@triton.jit
def k(x):
    v = tl.load(x + tl.arange(0, 16))
    tl.store(x + tl.arange(0, 32), tl.cat(v, v, can_reorder=True))
