"""Cross-entropy forward per row: loss = logsumexp(logits) - logits[target], with a row wider than one
block handled by an online maximum and rescaled sum."""

import triton
import triton.language as tl


@triton.jit
def cross_entropy_fwd(logits_ptr, target_ptr, loss_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = logits_ptr + row * stride
    m = -float("inf")
    s = 0.0
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < n_cols, other=-float("inf"))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    target = tl.load(target_ptr + row)
    picked = tl.load(base + target)
    tl.store(loss_ptr + row, tl.log(s) + m - picked)
