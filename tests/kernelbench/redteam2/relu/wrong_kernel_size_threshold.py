# ruff: noqa  (written as generated candidates are)
# wrong: a vectorised path above 4096 elements drops the last 3 (scaled instances stay below it)
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void relu_kernel(const float* x, float* out, int size) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (size > 4096) {
        if (idx < size / 4 * 4 - 4) {
            out[idx] = fmaxf(x[idx], 0.0f);
        } else if (idx < size) {
            out[idx] = 0.0f;
        }
    } else if (idx < size) {
        out[idx] = x[idx] > 0.0f ? x[idx] : 0.0f;
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    int size = x.numel();
    auto out = torch::empty_like(x);
    relu_kernel<<<(size + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), size);
    return out;
}
"""

cpp_source = ""

ext = load_inline(
    name="relu_wrong_kernel_size_threshold",
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
