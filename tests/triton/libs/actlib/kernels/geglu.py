# ruff: noqa: N803, N806 - the library's own names (BLOCK_SIZE)
"""GEGLU with the tanh approximation, as ``unsloth/kernels/geglu.py`` writes it: ``triton_tanh`` from the
sibling ``utils``, the kernel made by calling ``triton.jit``."""

import torch
import triton
import triton.language as tl

from ..kernels.utils import triton_cast
from .utils import calculate_settings, triton_tanh


def _approx_forward_kernel(e, g, h, n_elements, BLOCK_SIZE: tl.constexpr):
    block_idx = tl.program_id(0)
    offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    e_row = tl.load(e + offsets, mask=mask, other=0).to(tl.float32)
    g_row = tl.load(g + offsets, mask=mask, other=0)
    # f = 1/2 * e * (1 + tanh( sqrt(2/pi) * (e + 0.044715 * e^3 ) ))
    s = 0.7978845608028654  # math.sqrt(2 / math.pi)
    f_row = 0.5 * e_row * (triton_tanh(s * e_row * (1.0 + 0.044715 * e_row * e_row)) + 1.0)
    f_row = triton_cast(f_row, g_row.dtype)
    tl.store(h + offsets, f_row * g_row, mask=mask)


_approx_forward_kernel = triton.jit(_approx_forward_kernel)
geglu_approx_forward_kernel = _approx_forward_kernel


def geglu_approx_forward(gate, up):
    batch, seq_len, hd = gate.shape
    n_elements = gate.numel()
    out = torch.empty((batch, seq_len, hd), dtype=gate.dtype, device=gate.device)
    BLOCK_SIZE, _ = calculate_settings(min(n_elements, 1024))
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731 - as the library writes it
    _approx_forward_kernel[grid](gate, up, out, n_elements, BLOCK_SIZE=BLOCK_SIZE)
    return out
