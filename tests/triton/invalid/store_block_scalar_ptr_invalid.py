# params: x=f32*
# constexprs: BLOCK=16
# error: store_block_scalar_ptr_invalid.py:10:5: error: storing a block through a single pointer
import triton
import triton.language as tl


@triton.jit
def k(x, BLOCK: tl.constexpr):
    tl.store(x, tl.zeros((BLOCK,), tl.float32))
