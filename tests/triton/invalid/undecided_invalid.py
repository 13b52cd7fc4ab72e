# params: x=f32*
# constexprs:
# error: undecided_invalid.py:17:31: error: name BLOCK is bound differently by `DEVICE_TYPE == 'xpu'` (line 10), which larkc cannot decide (undecided_invalid.py:10:1): a @triton.jit function cannot use it
import triton
import triton.language as tl

from mylib.device_type import DEVICE_TYPE

# the block size is chosen by the device: larkc cannot know which, so the kernel's BLOCK is unknown
if DEVICE_TYPE == "xpu":
    BLOCK = 64
else:
    BLOCK = 128

@triton.jit
def k(x):
    tl.store(x + tl.arange(0, BLOCK), 1.0)
