# ruff: noqa  (written as generated candidates are)
# correct: linear, scale and bias fused; the kernel reads each parameter
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void linear_scale_bias_kernel(const float* x, const float* w, const float* b, const float* scale,
                                         const float* bias, float* y, int batch, int in_f, int out_f) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    if (row < batch && col < out_f) {
        float acc = b[col];
        for (int k = 0; k < in_f; ++k) {
            acc += x[row * in_f + k] * w[col * in_f + k];
        }
        y[row * out_f + col] = acc * scale[col] + bias[col];
    }
}

torch::Tensor linear_scale_bias(torch::Tensor x, torch::Tensor w, torch::Tensor b, torch::Tensor scale, torch::Tensor bias) {
    int batch = x.size(0);
    int in_f = x.size(1);
    int out_f = w.size(0);
    auto y = torch::empty({batch, out_f}, x.options());
    dim3 block(128);
    dim3 grid((out_f + 127) / 128, batch);
    linear_scale_bias_kernel<<<grid, block>>>(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
        scale.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(), batch, in_f, out_f);
    return y;
}
"""

cpp_source = ""

ext = load_inline(
    name="linear_scale_bias_correct_fused",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["linear_scale_bias"],
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
        return self.ext.linear_scale_bias(x, self.linear.weight, self.linear.bias, self.scale, self.bias)
