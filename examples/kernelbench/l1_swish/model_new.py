# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void swish_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v / (1.0f + expf(-v));
    }
}

torch::Tensor swish_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    swish_kernel<<<(n + 511) / 512, 512>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor swish_cuda(torch::Tensor x);"

swish_ext = load_inline(
    name="swish_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["swish_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.swish_ext = swish_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.swish_ext.swish_cuda(x)
