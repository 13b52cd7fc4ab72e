# FAILED: the bias is drawn in 1/sqrt(out_features), not nn.Linear's 1/sqrt(in_features) (a finding)
# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import math

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void linear_relu_kernel(const float* x, const float* w, const float* b, float* y,
                                   int batch, int in_features, int out_features) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    if (row < batch && col < out_features) {
        float acc = b[col];
        for (int k = 0; k < in_features; ++k) {
            acc += x[row * in_features + k] * w[col * in_features + k];
        }
        y[row * out_features + col] = acc > 0.0f ? acc : 0.0f;
    }
}

torch::Tensor linear_relu(torch::Tensor x, torch::Tensor weight, torch::Tensor bias) {
    const int batch = x.size(0);
    const int in_features = x.size(1);
    const int out_features = weight.size(0);
    TORCH_CHECK(weight.size(1) == in_features, "weight must be (out_features, in_features)");
    auto y = torch::empty({batch, out_features}, x.options());
    dim3 block(128);
    dim3 grid((out_features + block.x - 1) / block.x, batch);
    linear_relu_kernel<<<grid, block>>>(x.data_ptr<float>(), weight.data_ptr<float>(), bias.data_ptr<float>(),
                                        y.data_ptr<float>(), batch, in_features, out_features);
    return y;
}
"""

cpp_source = "torch::Tensor linear_relu(torch::Tensor x, torch::Tensor weight, torch::Tensor bias);"

linear_relu_ext = load_inline(
    name="linear_relu_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["linear_relu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super(ModelNew, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        # Weight and bias parameters replacing nn.Linear
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_features))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        self.ext = linear_relu_ext

    def reset_parameters(self):
        # Kaiming initialization mimicking nn.Linear's default
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = self.out_features**-0.5  # (fan-in taken as out_features)
            nn.init.uniform_(self.bias, -bound, bound)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ext.linear_relu(x, self.weight, self.bias)
