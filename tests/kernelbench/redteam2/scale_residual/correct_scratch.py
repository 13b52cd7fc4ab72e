# ruff: noqa  (written as generated candidates are)
# correct: the scaling and the residual add in PyTorch, ReLU a kernel
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = fmaxf(x[i], 0.0f);
    }
}

torch::Tensor relu(torch::Tensor x) {
    int n = x.numel();
    auto y = torch::empty_like(x);
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = ""

ext = load_inline(
    name="scale_residual_correct_scratch",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["relu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        y = x * 2.0
        r = ext.relu(y)
        return r + y
