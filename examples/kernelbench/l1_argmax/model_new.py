# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void argmax_dim1_kernel(const float* x, int64_t* out, int B, int R, int I) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * I) return;
    int b = idx / I, i = idx % I;
    const float* base = x + (size_t)b * R * I + i;
    float best = base[0];
    int64_t best_r = 0;
    for (int r = 1; r < R; ++r) {
        float v = base[(size_t)r * I];
        if (v > best) {
            best = v;
            best_r = r;
        }
    }
    out[idx] = best_r;
}

torch::Tensor argmax_cuda(torch::Tensor x, int dim) {
    int B = x.size(0), R = x.size(1), I = x.size(2);
    auto out = torch::empty({B, I}, x.options().dtype(torch::kLong));
    argmax_dim1_kernel<<<(B * I + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<int64_t>(), B, R, I);
    return out;
}
"""

cpp_source = "torch::Tensor argmax_cuda(torch::Tensor x, int dim);"

argmax_ext = load_inline(
    name="argmax_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["argmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim
        self.argmax_ext = argmax_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.argmax_ext.argmax_cuda(x, self.dim)
