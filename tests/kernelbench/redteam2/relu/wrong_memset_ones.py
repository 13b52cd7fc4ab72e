# ruff: noqa  (written as generated candidates are)
# wrong: cudaMemset with byte value 1 (not a float zero) before accumulating
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void relu_acc(const float* x, float* out, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        out[idx] += x[idx] > 0.0f ? x[idx] : 0.0f;
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    int size = x.numel();
    auto out = torch::empty_like(x);
    cudaMemset(out.data_ptr<float>(), 1, size * sizeof(float));
    relu_acc<<<(size + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), size);
    return out;
}
"""

cpp_source = ""

ext = load_inline(
    name="relu_wrong_memset_ones",
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
