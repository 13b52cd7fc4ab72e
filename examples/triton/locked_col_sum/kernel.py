"""Locked accumulation, as in Triton's layer-norm backward tutorial (`_layer_norm_bwd_dx_fused`): each
program sums ROWS rows of x into a partial column sum, takes a spin lock, adds the partial into the shared
accumulator (the first program to get the lock stores it, flagged by `count`), and releases the lock."""

import triton
import triton.language as tl


@triton.jit
def locked_col_sum_kernel(x_ptr, out_ptr, lock_ptr, count_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    cmask = cols < n_cols
    partial = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(ROWS):
        row = pid * ROWS + i
        live = cols < tl.where(row < n_rows, n_cols, 0)
        partial += tl.load(x_ptr + row * n_cols + cols, mask=live, other=0.0)
    while tl.atomic_cas(lock_ptr, 0, 1) == 1:
        pass
    count = tl.load(count_ptr)
    if count == 0:
        tl.atomic_xchg(count_ptr, 1)
    else:
        partial += tl.load(out_ptr + cols, mask=cmask)
    tl.store(out_ptr + cols, partial, mask=cmask)
    tl.atomic_xchg(lock_ptr, 0)
