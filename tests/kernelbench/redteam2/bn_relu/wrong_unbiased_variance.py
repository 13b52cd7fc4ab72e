# ruff: noqa  (written as generated candidates are)
# wrong: the unbiased variance (rows - 1) where batch norm normalises by the biased one
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void bn_relu_kernel(const float* x, const float* w, const float* b, float* y, int rows, int cols, float eps) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r) sum += x[r * cols + c];
    float mean = sum / rows;
    float sq = 0.0f;
    for (int r = 0; r < rows; ++r) {
        float d = x[r * cols + c] - mean;
        sq += d * d;
    }
    float inv = rsqrtf(sq / (rows - 1) + eps);
    for (int r = 0; r < rows; ++r) y[r * cols + c] = fmaxf((x[r * cols + c] - mean) * inv * w[c] + b[c], 0.0f);
}

torch::Tensor bn_relu(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps) {
    auto y = torch::empty_like(x);
    int rows = x.size(0), cols = x.size(1);
    bn_relu_kernel<<<(cols + 63) / 64, 64>>>(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
                                             y.data_ptr<float>(), rows, cols, (float)eps);
    return y;
}
"""

cpp_source = ""

ext = load_inline(
    name="bn_relu_wrong_unbiased_variance",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["bn_relu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        return ext.bn_relu(x, self.bn.weight, self.bn.bias, 1e-5)
