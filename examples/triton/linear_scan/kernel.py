"""A first-order linear recurrence h[t] = a[t] * h[t-1] + b[t] (h[-1] = 0) along each row, computed with
``tl.associative_scan`` over (a, b) pairs, as selective-scan (Mamba) kernels do."""

import triton
import triton.language as tl


@triton.jit
def first_order_combine(a_left, b_left, a_right, b_right):
    # (a_l, b_l) then (a_r, b_r): h -> a_r * (a_l * h + b_l) + b_r
    return a_right * a_left, a_right * b_left + b_right


@triton.jit
def linear_scan_kernel(a_ptr, b_ptr, h_ptr, stride, seq_len, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    t = tl.arange(0, BLOCK)
    mask = t < seq_len
    a = tl.load(a_ptr + row * stride + t, mask=mask, other=1.0)
    b = tl.load(b_ptr + row * stride + t, mask=mask, other=0.0)
    _, h = tl.associative_scan((a, b), 0, first_order_combine)
    tl.store(h_ptr + row * stride + t, h, mask=mask)
