# expect: mismatch
# Bug: indexes the bias by row instead of by column.
# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void bias_relu_scale_kernel(const float* x, const float* bias, float* y, int rows, int cols, float scale) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y;
    if (r < rows && c < cols) {
        float v = x[r * cols + c] + bias[r];
        y[r * cols + c] = (v > 0.0f ? v : 0.0f) * scale;
    }
}

torch::Tensor bias_relu_scale(torch::Tensor x, torch::Tensor bias, float scale) {
    const int rows = x.size(0);
    const int cols = x.size(1);
    TORCH_CHECK(bias.size(0) == cols, "bias must have one value per column");
    auto y = torch::empty_like(x);
    dim3 block(256);
    dim3 grid((cols + block.x - 1) / block.x, rows);
    bias_relu_scale_kernel<<<grid, block>>>(
        x.data_ptr<float>(), bias.data_ptr<float>(), y.data_ptr<float>(), rows, cols, scale);
    return y;
}
"""

cpp_source = "torch::Tensor bias_relu_scale(torch::Tensor x, torch::Tensor bias, float scale);"

fused_ext = load_inline(
    name="fused_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["bias_relu_scale"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super(ModelNew, self).__init__()
        self.scale = scale
        self.fused_ext = fused_ext

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return self.fused_ext.bias_relu_scale(x, bias, self.scale)
