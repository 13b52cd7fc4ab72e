# params: x=f32*, n=i32
# constexprs: BLOCK=16
# error: break_invalid.py:13:9: error: unsupported statement: break
import triton
import triton.language as tl


@triton.jit
def k(x, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    for j in range(0, n):
        tl.store(x + i, j)
        break
