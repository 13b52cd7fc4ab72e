# FAILED: passes out_features as in_features (rows of x read with the wrong length)
# ruff: noqa: PLR0402, UP008, RUF059  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <c10/util/Optional.h>

__global__ void linear_relu_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                   const float* __restrict__ b, float* __restrict__ y,
                                   int batch, int in_features, int out_features, bool has_bias) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y;
    if (row < batch && col < out_features) {
        float acc = 0.0f;
        for (int k = 0; k < in_features; ++k) {
            acc += x[row * in_features + k] * w[col * in_features + k];
        }
        if (has_bias) {
            acc += b[col];
        }
        y[row * out_features + col] = fmaxf(acc, 0.0f);
    }
}

torch::Tensor linear_relu_cuda(torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias,
                               int batch, int in_features, int out_features) {
    auto y = torch::empty({batch, out_features}, x.options());
    bool has_bias = bias.has_value();
    const float* bias_ptr = has_bias ? bias.value().data_ptr<float>() : nullptr;
    dim3 block(128);
    dim3 grid((out_features + block.x - 1) / block.x, batch);
    linear_relu_kernel<<<grid, block>>>(x.data_ptr<float>(), weight.data_ptr<float>(), bias_ptr,
                                        y.data_ptr<float>(), batch, in_features, out_features, has_bias);
    return y;
}
"""

cpp_source = (
    "torch::Tensor linear_relu_cuda(torch::Tensor x, torch::Tensor weight, c10::optional<torch::Tensor> bias, "
    "int batch, int in_features, int out_features);"
)

linear_relu = load_inline(
    name="linear_relu",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["linear_relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        self.linear_relu = linear_relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch_size, in_features = x.shape
        out_features = self.linear.weight.size(0)
        return self.linear_relu.linear_relu_cuda(
            x.contiguous(), self.linear.weight, self.linear.bias, batch_size, out_features, out_features
        )
