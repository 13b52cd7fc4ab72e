# ruff: noqa: N803, N806, N816 - the library's own names (BLOCK_M, _kAlpha)
"""GELU(x[:, :n]) * x[:, n:], written as LightLLM's ``models/gemma_2b/triton_kernel/gelu_and_mul.py``: a
module constant computed with Python's ``math`` (``triton.language.constexpr(math.sqrt(2.0 / math.pi))``)
and a local ``tanh`` helper."""

import math

import torch
import triton
import triton.language as tl

# copy from xformers impl.
_kAlpha = triton.language.constexpr(math.sqrt(2.0 / math.pi))


@triton.jit
def tanh(x):
    # Tanh is just a scaled sigmoid
    return 2 * tl.sigmoid(2 * x) - 1


@triton.jit
def gelu(x):
    return 0.5 * x * (1 + tanh(_kAlpha * (x + 0.044715 * x * x * x)))


@triton.jit
def _gelu_and_mul_kernel(input_ptr, output_ptr, stride_m, size_m, size_n, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    m_offs = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    n_offs = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (m_offs[:, None] < size_m) & (n_offs[None, :] < size_n)
    up = tl.load(input_ptr + m_offs[:, None] * stride_m + size_n + n_offs[None, :], mask=mask, other=0.0)
    gate = tl.load(input_ptr + m_offs[:, None] * stride_m + n_offs[None, :], mask=mask, other=0.0)
    tl.store(output_ptr + m_offs[:, None] * size_n + n_offs[None, :], gelu(gate) * up, mask=mask)


def gelu_and_mul_fwd(input):
    size_m, size_n = input.shape[0], input.shape[1] // 2
    output = torch.empty((size_m, size_n), dtype=input.dtype, device=input.device)
    BLOCK_M, BLOCK_N = 8, 16
    grid = (triton.cdiv(size_m, BLOCK_M), triton.cdiv(size_n, BLOCK_N))
    _gelu_and_mul_kernel[grid](input, output, input.stride(0), size_m, size_n, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return output
