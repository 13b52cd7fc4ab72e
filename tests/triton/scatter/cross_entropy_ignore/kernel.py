"""Cross-entropy loss per row with an ignore index, as Liger and Unsloth write it: a row whose label is
``ignore_index`` stores a zero loss and returns before reading its logits."""

import triton
import triton.language as tl


@triton.jit
def cross_entropy_kernel(X_ptr, X_stride, Y_ptr, loss_ptr, n_cols, ignore_index, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    y = tl.load(Y_ptr + program_id)
    if y == ignore_index:
        tl.store(loss_ptr + program_id, 0.0)
        return
    X_ptr += program_id * X_stride
    offsets = tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_cols
    x = tl.load(X_ptr + offsets, mask=mask, other=float("-inf"))
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    x_y = tl.load(X_ptr + y)
    tl.store(loss_ptr + program_id, lse - x_y)
