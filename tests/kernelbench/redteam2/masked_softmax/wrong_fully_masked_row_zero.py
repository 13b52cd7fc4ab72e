# ruff: noqa  (written as generated candidates are)
# wrong: a fully masked row is written as zeros where the reference's is NaN
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void masked_softmax_kernel(const float* s, const bool* mask, float* out, int n) {
    int row = blockIdx.x;
    float m = -INFINITY;
    for (int j = 0; j < n; ++j) {
        if (!mask[row * n + j]) m = fmaxf(m, s[row * n + j]);
    }
    if (m == -INFINITY) {
        for (int j = 0; j < n; ++j) out[row * n + j] = 0.0f;
        return;
    }
    float sum = 0.0f;
    for (int j = 0; j < n; ++j) {
        if (!mask[row * n + j]) sum += expf(s[row * n + j] - m);
    }
    for (int j = 0; j < n; ++j) {
        out[row * n + j] = mask[row * n + j] ? 0.0f : expf(s[row * n + j] - m) / sum;
    }
}

torch::Tensor masked_softmax(torch::Tensor scores, torch::Tensor mask) {
    auto out = torch::empty_like(scores);
    int rows = scores.size(0);
    int n = scores.size(1);
    masked_softmax_kernel<<<rows, 1>>>(scores.data_ptr<float>(), mask.data_ptr<bool>(), out.data_ptr<float>(), n);
    return out;
}
"""

cpp_source = ""

ext = load_inline(
    name="masked_softmax_wrong_fully_masked_row_zero",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["masked_softmax"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.ext = ext

    def forward(self, scores, mask):
        return self.ext.masked_softmax(scores, mask)
