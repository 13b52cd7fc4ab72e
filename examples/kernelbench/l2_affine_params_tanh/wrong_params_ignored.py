# expect: mismatch
# Bug: applies tanh only: right while the scale is ones and the shift zeros (as initialised), wrong once trained.
# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

tanh_source = """
#include <torch/extension.h>

__global__ void tanh_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t numel) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < numel) y[i] = tanhf(x[i]);
}

torch::Tensor affine_tanh(torch::Tensor x, torch::Tensor scale, torch::Tensor shift) {
    auto y = torch::empty_like(x);
    int64_t numel = x.numel();
    tanh_kernel<<<(numel + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), numel);
    return y;
}
"""

tanh_ext = load_inline(
    name="tanh_ext",
    cpp_sources="torch::Tensor affine_tanh(torch::Tensor x, torch::Tensor scale, torch::Tensor shift);",
    cuda_sources=tanh_source,
    functions=["affine_tanh"],
)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super(ModelNew, self).__init__()
        self.scale = nn.Parameter(torch.ones(features))
        self.shift = nn.Parameter(torch.zeros(features))
        self.ext = tanh_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ext.affine_tanh(x, self.scale, self.shift)
