"""Embedding lookup as model code writes it in Triton: program ``t`` copies row ``ids[t]`` of the weight
table (``n_embd`` wide, padded to a power of two) into row ``t`` of the output."""

import triton
import triton.language as tl


@triton.jit
def embedding_forward_kernel(ids_ptr, weight_ptr, out_ptr, n_embd, stride_w, stride_o, BLOCK_D: tl.constexpr):
    pid = tl.program_id(0)
    token = tl.load(ids_ptr + pid)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < n_embd
    row = tl.load(weight_ptr + token * stride_w + cols, mask=mask, other=0.0)
    tl.store(out_ptr + pid * stride_o + cols, row, mask=mask)


@triton.jit
def embedding_forward_kernel_shifted(ids_ptr, weight_ptr, out_ptr, n_embd, stride_w, stride_o, BLOCK_D: tl.constexpr):
    # the bug: the row is read one column late (a pointer advanced past a header that is not there)
    pid = tl.program_id(0)
    token = tl.load(ids_ptr + pid)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < n_embd
    row = tl.load(weight_ptr + token * stride_w + cols + 1, mask=cols + 1 < n_embd, other=0.0)
    tl.store(out_ptr + pid * stride_o + cols, row, mask=mask)


@triton.jit
def embedding_forward_kernel_next_id(ids_ptr, weight_ptr, out_ptr, n_embd, stride_w, stride_o, BLOCK_D: tl.constexpr):
    # the bug: the id is read one token late (the last program reads past the end of ids)
    pid = tl.program_id(0)
    token = tl.load(ids_ptr + pid + 1)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < n_embd
    row = tl.load(weight_ptr + token * stride_w + cols, mask=mask, other=0.0)
    tl.store(out_ptr + pid * stride_o + cols, row, mask=mask)
