# ruff: noqa  (written as generated candidates are)
# wrong: one block per row, min(1024, dim) threads, one column per thread (dim is 16384)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void relu_rows(const float* x, float* out, int dim) {
    int row = blockIdx.x;
    int col = threadIdx.x;
    if (col < dim) {
        float v = x[row * dim + col];
        out[row * dim + col] = v > 0.0f ? v : 0.0f;
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    int batch = x.size(0);
    int dim = x.size(1);
    auto out = torch::zeros_like(x);
    int threads = std::min(1024, dim);
    relu_rows<<<batch, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), dim);
    return out;
}
"""

cpp_source = ""

ext = load_inline(
    name="relu_wrong_row_clamp",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.ext = ext

    def forward(self, x):
        return self.ext.relu_cuda(x)
