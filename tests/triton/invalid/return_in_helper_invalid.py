# params: x=f32*, n=i32
# constexprs:
# error: return_in_helper_invalid.py:10:5: error: unsupported return inside control flow: in h (inlined helpers return at the end)
import triton
import triton.language as tl


@triton.jit
def h(v):
    if v > 0:
        return v
    return -v


@triton.jit
def k(x, n):
    tl.store(x, h(n).to(tl.float32))
