# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void mean_dim1_kernel(const float* x, float* out, int B, int R, int I) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < B * I) {
        int b = idx / I;
        int i = idx % I;
        float s = 0.0f;
        for (int r = 0; r < R; ++r) {
            s += x[(b * R + r) * I + i];
        }
        out[idx] = s / R;
    }
}

torch::Tensor mean_reduce_cuda(torch::Tensor x, int dim) {
    TORCH_CHECK(x.dim() == 3 && dim == 1, "expects a 3-D input reduced over dim 1");
    int B = x.size(0), R = x.size(1), I = x.size(2);
    auto out = torch::empty({B, I}, x.options());
    int threads = 256;
    int blocks = (B * I + threads - 1) / threads;
    mean_dim1_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), B, R, I);
    return out;
}
"""

cpp_source = "torch::Tensor mean_reduce_cuda(torch::Tensor x, int dim);"

mean_ext = load_inline(
    name="mean_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["mean_reduce_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim
        self.mean_ext = mean_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mean_ext.mean_reduce_cuda(x, self.dim)
