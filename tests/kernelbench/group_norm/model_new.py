# ruff: noqa: PLR0402, UP008  (written as generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

group_norm_source = r"""
#include <torch/extension.h>

// One thread per (sample, group) row of the (batch, groups, channels per group) view: the row's mean
// and biased variance, then the normalised row.
__global__ void group_normalize_kernel(const float* __restrict__ x, float* __restrict__ y,
                                       int rows, int cols, float eps) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + r * cols;
    float mean = 0.0f;
    for (int i = 0; i < cols; ++i) mean += xr[i];
    mean /= cols;
    float var = 0.0f;
    for (int i = 0; i < cols; ++i) {
        float d = xr[i] - mean;
        var += d * d;
    }
    var /= cols;
    float inv_std = rsqrtf(var + eps);
    for (int i = 0; i < cols; ++i) y[r * cols + i] = (xr[i] - mean) * inv_std;
}

torch::Tensor group_normalize(torch::Tensor x, double eps) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 3, "expected (batch, groups, channels per group)");
    auto y = torch::empty_like(x);
    const int rows = x.size(0) * x.size(1);
    const int cols = x.size(2);
    const int threads = 128;
    const int blocks = (rows + threads - 1) / threads;
    group_normalize_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols, (float)eps);
    return y;
}
"""

group_norm_cpp = "torch::Tensor group_normalize(torch::Tensor x, double eps);"

group_norm_ext = load_inline(
    name="group_norm_ext",
    cpp_sources=group_norm_cpp,
    cuda_sources=group_norm_source,
    functions=["group_normalize"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, num_groups):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.group_norm = nn.GroupNorm(num_groups, out_features)
        self.num_groups = num_groups
        self.eps = 1e-5
        self.ext = group_norm_ext

    def forward(self, x):
        x = self.gemm(x)
        batch_size = x.shape[0]
        x = x.view(batch_size, self.num_groups, -1).contiguous()
        x = self.ext.group_normalize(x, self.eps)
        x = x.view(batch_size, -1)
        x = x * self.group_norm.weight + self.group_norm.bias
        return torch.clamp(x, min=-1.0, max=1.0)
