# params: x=f32*
# constexprs:
# error: unread_import_invalid.py:11:17: error: name scale is imported from .helpers, which larkc does not read (unread_import_invalid.py:6:1): a @triton.jit function cannot use it
import triton
import triton.language as tl
from .helpers import scale


@triton.jit
def k(x):
    tl.store(x, scale(1.0))
