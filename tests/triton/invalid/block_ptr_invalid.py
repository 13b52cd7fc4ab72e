# params: x=f32*, n=i32
# constexprs: BLOCK=16
# error: block_ptr_invalid.py:10:9: error: unsupported Triton function: make_block_ptr()
import triton
import triton.language as tl


@triton.jit
def k(x, n, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(x, (n,), (1,), (0,), (BLOCK,), (0,))
    tl.store(p, tl.zeros((BLOCK,), tl.float32), boundary_check=(0,))
