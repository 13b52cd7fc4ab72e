# ruff: noqa  (written as generated candidates are)
# correct: the layer kept in PyTorch, scale and bias fused
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void scale_bias_kernel(const float* x, const float* scale, const float* bias, float* y, int n, int f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int c = i % f;
        y[i] = x[i] * scale[c] + bias[c];
    }
}

torch::Tensor scale_bias(torch::Tensor x, torch::Tensor scale, torch::Tensor bias) {
    int n = x.numel();
    int f = x.size(1);
    auto y = torch::empty_like(x);
    scale_bias_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), scale.data_ptr<float>(), bias.data_ptr<float>(),
                                                  y.data_ptr<float>(), n, f);
    return y;
}
"""

cpp_source = ""

ext = load_inline(
    name="linear_scale_bias_correct_module_then_kernel",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["scale_bias"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(bias_shape))
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.ext = ext

    def forward(self, x):
        x = self.linear(x)
        return self.ext.scale_bias(x, self.scale, self.bias)
