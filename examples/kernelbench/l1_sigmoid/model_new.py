# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void sigmoid_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i + 3 < n) {
        float4 v = *reinterpret_cast<const float4*>(x + i);
        float4 r;
        r.x = 1.0f / (1.0f + expf(-v.x));
        r.y = 1.0f / (1.0f + expf(-v.y));
        r.z = 1.0f / (1.0f + expf(-v.z));
        r.w = 1.0f / (1.0f + expf(-v.w));
        *reinterpret_cast<float4*>(y + i) = r;
    } else {
        for (int j = i; j < n; ++j) {
            y[j] = 1.0f / (1.0f + expf(-x[j]));
        }
    }
}

torch::Tensor sigmoid_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    int threads = 256;
    int blocks = ((n + 3) / 4 + threads - 1) / threads;
    sigmoid_vec4_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor sigmoid_cuda(torch::Tensor x);"

sigmoid_ext = load_inline(
    name="sigmoid_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["sigmoid_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.sigmoid_ext = sigmoid_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.sigmoid_ext.sigmoid_cuda(x)
