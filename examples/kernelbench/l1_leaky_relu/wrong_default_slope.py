# expect: mismatch
# Bug: ignores the slope argument and uses the default 0.01.
# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>

__global__ void leaky_relu_kernel(const float* __restrict__ x, float* __restrict__ y, float slope, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        float v = x[i];
        y[i] = v > 0.0f ? v : v * 0.01f;
    }
}

torch::Tensor leaky_relu_forward(torch::Tensor x, double negative_slope) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    int threads = 512;
    int blocks = std::min((int)((n + threads - 1) / threads), 1024);
    leaky_relu_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), (float)negative_slope, n);
    return y;
}
"""

cpp_src = "torch::Tensor leaky_relu_forward(torch::Tensor x, double negative_slope);"

leaky = load_inline(
    name="leaky_relu_ext",
    cpp_sources=cpp_src,
    cuda_sources=cuda_src,
    functions=["leaky_relu_forward"],
)


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super(ModelNew, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return leaky.leaky_relu_forward(x, self.negative_slope)
