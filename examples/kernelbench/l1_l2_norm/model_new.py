# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void l2_normalize_kernel(const float* x, float* y, int dim) {
    __shared__ float warp_sums[32];
    const float* xr = x + (size_t)blockIdx.x * dim;
    float* yr = y + (size_t)blockIdx.x * dim;
    float s = 0.0f;
    for (int j = threadIdx.x; j < dim; j += blockDim.x) {
        s += xr[j] * xr[j];
    }
    for (int off = 16; off > 0; off >>= 1) {
        s += __shfl_down_sync(0xffffffff, s, off);
    }
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1) {
            s += __shfl_down_sync(0xffffffff, s, off);
        }
        if (lane == 0) warp_sums[0] = s;
    }
    __syncthreads();
    float norm = sqrtf(warp_sums[0]);
    for (int j = threadIdx.x; j < dim; j += blockDim.x) {
        yr[j] = xr[j] / norm;
    }
}

torch::Tensor l2_normalize(torch::Tensor x) {
    auto y = torch::empty_like(x);
    l2_normalize_kernel<<<x.size(0), 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1));
    return y;
}
"""

cpp_source = "torch::Tensor l2_normalize(torch::Tensor x);"

l2norm_ext = load_inline(
    name="l2norm_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["l2_normalize"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.l2norm_ext = l2norm_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.l2norm_ext.l2_normalize(x)
