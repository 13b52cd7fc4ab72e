# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <cfloat>

__global__ void max_lastdim_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    extern __shared__ float smem[];
    const float* row = x + (size_t)blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) {
        m = fmaxf(m, row[j]);
    }
    smem[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            smem[threadIdx.x] = fmaxf(smem[threadIdx.x], smem[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = smem[0];
    }
}

torch::Tensor max_reduce_cuda(torch::Tensor x, int dim) {
    TORCH_CHECK(dim == 2 || dim == -1, "reduces over the last dimension");
    int rows = x.size(0) * x.size(1);
    int cols = x.size(2);
    auto out = torch::empty({x.size(0), x.size(1)}, x.options());
    const int threads = 128;
    max_lastdim_kernel<<<rows, threads, threads * sizeof(float)>>>(x.data_ptr<float>(), out.data_ptr<float>(), cols);
    return out;
}
"""

cpp_source = "torch::Tensor max_reduce_cuda(torch::Tensor x, int dim);"

max_ext = load_inline(
    name="max_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["max_reduce_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim
        self.max_ext = max_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.max_ext.max_reduce_cuda(x, self.dim)
