# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

// one warp per row: online max and sum of exponentials, combined across lanes with shuffles
__global__ void log_softmax_warp_kernel(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float m = -INFINITY;
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, xr[j]);
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, off));
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32) s += expf(xr[j] - m);
    for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffff, s, off);
    float lse = m + logf(s);
    for (int j = lane; j < cols; j += 32) y[(size_t)row * cols + j] = xr[j] - lse;
}

torch::Tensor log_softmax_cuda(torch::Tensor x) {
    int rows = x.size(0), cols = x.size(1);
    auto y = torch::empty_like(x);
    const int warps_per_block = 4;
    log_softmax_warp_kernel<<<(rows + warps_per_block - 1) / warps_per_block, warps_per_block * 32>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""

cpp_source = "torch::Tensor log_softmax_cuda(torch::Tensor x);"

log_softmax_ext = load_inline(
    name="log_softmax_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["log_softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.log_softmax_ext = log_softmax_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.log_softmax_ext.log_softmax_cuda(x)
