# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__device__ float block_reduce_max(float v, float* shared) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, off));
    if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
    __syncthreads();
    v = shared[0];
    for (int w = 1; w < blockDim.x / 32; ++w) v = fmaxf(v, shared[w]);
    __syncthreads();
    return v;
}

__device__ float block_reduce_sum(float v, float* shared) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffff, v, off);
    if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = v;
    __syncthreads();
    v = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w) v += shared[w];
    __syncthreads();
    return v;
}

__global__ void softmax_residual_kernel(const float* x, float* y, int cols, float scale) {
    __shared__ float shared[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, xr[j]);
    m = block_reduce_max(m, shared);
    float s = 0.0f;
    for (int j = threadIdx.x; j < cols; j += blockDim.x) s += expf(xr[j] - m);
    s = block_reduce_sum(s, shared);
    for (int j = threadIdx.x; j < cols; j += blockDim.x) yr[j] = xr[j] + scale * expf(xr[j] - m) / s;
}

torch::Tensor softmax_residual(torch::Tensor x, double scale) {
    auto y = torch::empty_like(x);
    softmax_residual_kernel<<<x.size(0), 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(1), scale);
    return y;
}
"""

cpp_source = "torch::Tensor softmax_residual(torch::Tensor x, double scale);"

fused_ext = load_inline(
    name="fused_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["softmax_residual"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super(ModelNew, self).__init__()
        self.scale = scale
        self.fused_ext = fused_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fused_ext.softmax_residual(x, self.scale)
