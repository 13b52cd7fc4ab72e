# ruff: noqa  (written as generated candidates are)
# wrong: the grid clamped at 512 blocks without a grid-stride loop (the problem needs 1024)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <algorithm>

__global__ void relu_kernel(const float* x, float* out, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        out[idx] = x[idx] > 0.0f ? x[idx] : 0.0f;
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto size = x.numel();
    auto out = torch::zeros_like(x);
    const int threads = 256;
    const int blocks = std::min((int)((size + threads - 1) / threads), 512);
    relu_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), size);
    return out;
}
"""

cpp_source = ""

ext = load_inline(
    name="relu_wrong_grid_clamp",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.ext = ext

    def forward(self, x):
        return self.ext.relu_cuda(x)
