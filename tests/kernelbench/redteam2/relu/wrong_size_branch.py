# ruff: noqa  (written as generated candidates are)
# wrong: PyTorch at small batches, a kernel that assumes dim == 16384 at the problem's
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void relu_kernel(const float* x, float* out) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    out[idx] = x[idx] > 0.0f ? x[idx] : 0.0f;
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto out = torch::empty_like(x);
    relu_kernel<<<x.size(0) * 64, 256>>>(x.data_ptr<float>(), out.data_ptr<float>());
    return out;
}
"""

cpp_source = ""

ext = load_inline(
    name="relu_wrong_size_branch",
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
        if x.size(0) < 16:
            return torch.relu(x)
        return self.ext.relu_cuda(x)
