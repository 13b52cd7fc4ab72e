# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void hardtanh_kernel(const float* x, float* out, int64_t n, float lo, float hi) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)blockDim.x * gridDim.x) {
        out[i] = fminf(fmaxf(x[i], lo), hi);
    }
}

torch::Tensor hardtanh_cuda(torch::Tensor x) {
    auto out = torch::empty_like(x);
    int64_t n = x.numel();
    hardtanh_kernel<<<std::min<int64_t>((n + 255) / 256, 4096), 256>>>(
        x.data_ptr<float>(), out.data_ptr<float>(), n, -1.0f, 1.0f);
    return out;
}
"""

cpp_source = "torch::Tensor hardtanh_cuda(torch::Tensor x);"

hardtanh_ext = load_inline(
    name="hardtanh_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["hardtanh_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.hardtanh_ext = hardtanh_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.hardtanh_ext.hardtanh_cuda(x)
