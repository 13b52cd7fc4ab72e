"""Row softmax, one program per row, BLOCK_SIZE = next_power_of_2(n_cols). The loads and stores were
left unmasked "because BLOCK_SIZE covers the row": it covers more than the row whenever n_cols is not a
power of two, and the last row then reads and writes past the end of the tensor."""

import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets)
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / denominator)
