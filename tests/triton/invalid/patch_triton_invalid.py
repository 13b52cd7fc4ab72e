# params: x=f32*, y=f32*
# constexprs:
# error: patch_triton_invalid.py:16:5: error: name tl is a name of Triton, whose modules the file modifies (`tl.sum`) (patch_triton_invalid.py:9:5): a @triton.jit function cannot use it
import triton
import triton.language as tl


def _patch():
    tl.sum = tl.max  # Triton's code generator then reads max for tl.sum (real Triton does)


_patch()  # was ignored before: tl.sum was read as the sum, and a wrong kernel VERIFIED

@triton.jit
def k(x, y):
    tl.store(y, tl.sum(tl.load(x + tl.arange(0, 4)), axis=0))
