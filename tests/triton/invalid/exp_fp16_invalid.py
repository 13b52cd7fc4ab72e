# params: x=f16*
# constexprs: BLOCK=16
# error: exp_fp16_invalid.py:11:39: error: exp expects fp32 or fp64, got fp16 (cast it first)
import triton
import triton.language as tl


@triton.jit
def k(x, BLOCK: tl.constexpr):
    v = tl.load(x + tl.arange(0, BLOCK))
    tl.store(x + tl.arange(0, BLOCK), tl.exp(v))
