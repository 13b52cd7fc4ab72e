# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__inline__ __device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    return v;
}

// one warp per output element: out[b, 0, i] = sum_r x[b, r, i]
__global__ void sum_dim1_kernel(const float* x, float* out, int B, int R, int I) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= B * I) return;
    int b = warp / I;
    int i = warp % I;
    float s = 0.0f;
    for (int r = lane; r < R; r += 32) {
        s += x[(b * R + r) * I + i];
    }
    s = warp_sum(s);
    if (lane == 0) {
        out[b * I + i] = s;
    }
}

torch::Tensor sum_reduce_cuda(torch::Tensor x, int dim) {
    TORCH_CHECK(dim == 1, "only dim=1 is supported");
    int B = x.size(0);
    int R = x.size(1);
    int I = x.size(2);
    auto out = torch::empty({B, 1, I}, x.options());
    const int threads = 256;
    const int warps_per_block = threads / 32;
    const int blocks = (B * I + warps_per_block - 1) / warps_per_block;
    sum_dim1_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), B, R, I);
    return out;
}
"""

sum_cpp_source = "torch::Tensor sum_reduce_cuda(torch::Tensor x, int dim);"

sum_ext = load_inline(
    name="sum_ext",
    cpp_sources=sum_cpp_source,
    cuda_sources=sum_source,
    functions=["sum_reduce_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim
        self.sum_ext = sum_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.sum_ext.sum_reduce_cuda(x, self.dim)
