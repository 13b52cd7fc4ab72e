# params: x=f32*, n=i32
# constexprs: BLOCK=16
# error: loop_type_invalid.py:13:9: error: acc has type fp32 outside this loop or branch and cannot become block[16] of fp32 inside it
import triton
import triton.language as tl


@triton.jit
def k(x, n, BLOCK: tl.constexpr):
    acc = 0.0
    for j in range(0, n):
        v = tl.load(x + j * BLOCK + tl.arange(0, BLOCK))
        acc = acc + v
    tl.store(x, acc)
