# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void scale_tanh_clamp_kernel(const float* __restrict__ in, float* __restrict__ out,
                                        float scale, float clamp_max, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = tanhf(in[i] * scale);
        out[i] = fminf(fmaxf(v, -clamp_max), clamp_max);
    }
}

torch::Tensor scale_tanh_clamp(torch::Tensor x, double scale, double clamp_max) {
    auto out = torch::empty_like(x);
    int n = x.numel();
    const int block = 256;
    scale_tanh_clamp_kernel<<<(n + block - 1) / block, block>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), (float)scale, (float)clamp_max, n);
    return out;
}
"""

cpp_source = "torch::Tensor scale_tanh_clamp(torch::Tensor x, double scale, double clamp_max);"

fused_ext = load_inline(
    name="fused_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["scale_tanh_clamp"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, scale: float, clamp_max: float):
        super(ModelNew, self).__init__()
        self.scale = scale
        self.clamp_max = clamp_max
        self.fused_ext = fused_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fused_ext.scale_tanh_clamp(x, self.scale, self.clamp_max)
