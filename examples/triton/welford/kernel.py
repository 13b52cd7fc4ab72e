"""Mean and variance of each row in one pass, with ``tl.reduce`` over Welford triples (mean, m2, weight)
and the combine function of PyTorch Inductor's generated kernels (``welford_combine``)."""

import triton
import triton.language as tl


@triton.jit
def welford_combine(mean_1, m2_1, weight_1, mean_2, m2_2, weight_2):
    delta = mean_2 - mean_1
    new_weight = weight_1 + weight_2
    w2_over_w = tl.where(new_weight == 0.0, 0.0, weight_2 / new_weight)
    return (
        mean_1 + delta * w2_over_w,
        m2_1 + m2_2 + delta * delta * weight_1 * w2_over_w,
        new_weight,
    )


@triton.jit
def welford_kernel(x_ptr, mean_ptr, var_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    weight = mask.to(tl.float32)
    m2 = tl.zeros([BLOCK], dtype=tl.float32)
    mean, m2, count = tl.reduce((x, m2, weight), 0, welford_combine)
    tl.store(mean_ptr + row, mean)
    tl.store(var_ptr + row, m2 / count)
