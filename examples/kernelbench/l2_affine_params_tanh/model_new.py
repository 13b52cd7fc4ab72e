# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

affine_tanh_source = """
#include <torch/extension.h>

__global__ void affine_tanh_kernel(const float* __restrict__ x, const float* __restrict__ scale,
                                   const float* __restrict__ shift, float* __restrict__ y,
                                   int64_t numel, int64_t features) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < numel; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t f = i % features;
        y[i] = tanhf(x[i] * scale[f] + shift[f]);
    }
}

torch::Tensor affine_tanh(torch::Tensor x, torch::Tensor scale, torch::Tensor shift) {
    auto y = torch::empty_like(x);
    int64_t numel = x.numel();
    int threads = 256;
    int blocks = std::min<int64_t>((numel + threads - 1) / threads, 1024);
    affine_tanh_kernel<<<blocks, threads>>>(x.data_ptr<float>(), scale.data_ptr<float>(), shift.data_ptr<float>(),
                                            y.data_ptr<float>(), numel, x.size(1));
    return y;
}
"""

affine_tanh_cpp = "torch::Tensor affine_tanh(torch::Tensor x, torch::Tensor scale, torch::Tensor shift);"

affine_tanh = load_inline(
    name="affine_tanh",
    cpp_sources=affine_tanh_cpp,
    cuda_sources=affine_tanh_source,
    functions=["affine_tanh"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super(ModelNew, self).__init__()
        self.scale = nn.Parameter(torch.ones(features))
        self.shift = nn.Parameter(torch.zeros(features))
        self.affine_tanh = affine_tanh

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.affine_tanh.affine_tanh(x.contiguous(), self.scale, self.shift)
