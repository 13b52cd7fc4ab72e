"""Row sums in chunks of an autotuned BLOCK_N, unmasked when a heuristic finds the row length a multiple
of the chunk (EVEN_N): every autotune configuration is a specialisation that must be correct."""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_N": 16}, num_warps=1),
        triton.Config({"BLOCK_N": 32}, num_warps=2),
        triton.Config({"BLOCK_N": 64}, num_warps=4),
    ],
    key=["n_cols"],
)
@triton.heuristics({"EVEN_N": lambda args: args["n_cols"] % args["BLOCK_N"] == 0})
@triton.jit
def row_sum_kernel(x_ptr, out_ptr, stride, n_cols, BLOCK_N: tl.constexpr, EVEN_N: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        if EVEN_N:
            x = tl.load(x_ptr + row * stride + cols)
        else:
            x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
        acc += x
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    """The launcher: one program per row; BLOCK_N is the autotuner's choice, EVEN_N the heuristic's."""
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    row_sum_kernel[(n_rows,)](x, out, x.stride(0), n_cols)
    return out
