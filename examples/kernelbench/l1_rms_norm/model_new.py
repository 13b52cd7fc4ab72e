# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

rms_norm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// one thread per (batch, spatial position): the mean of squares over the features, then the division
__global__ void rms_norm_kernel(const float* x, float* y, int batch, int features, int spatial,
                                float inv_features, float eps) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= batch * spatial) return;
    int b = idx / spatial;
    int s = idx % spatial;
    const float* xb = x + (size_t)b * features * spatial + s;
    float* yb = y + (size_t)b * features * spatial + s;
    float sum_sq = 0.0f;
    for (int f = 0; f < features; ++f) {
        float v = xb[f * spatial];
        sum_sq += v * v;
    }
    float rms = sqrtf(sum_sq * inv_features + eps);
    for (int f = 0; f < features; ++f) {
        yb[f * spatial] = xb[f * spatial] / rms;
    }
}

torch::Tensor rms_norm_cuda(torch::Tensor x, float eps) {
    const int batch = x.size(0);
    const int features = x.size(1);
    const int spatial = x.numel() / (batch * features);
    const float inv_features = 1.0f / features;
    auto y = torch::empty_like(x);
    const int threads = 256;
    const int blocks = (batch * spatial + threads - 1) / threads;
    rms_norm_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), batch, features, spatial,
                                         inv_features, eps);
    return y;
}
"""

rms_norm_cpp_source = "torch::Tensor rms_norm_cuda(torch::Tensor x, float eps);"

rms_norm = load_inline(
    name="rms_norm",
    cpp_sources=rms_norm_cpp_source,
    cuda_sources=rms_norm_source,
    functions=["rms_norm_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super(ModelNew, self).__init__()
        self.eps = eps
        self.rms_norm = rms_norm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.rms_norm.rms_norm_cuda(x, self.eps)
