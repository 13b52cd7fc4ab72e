# ruff: noqa  (written as generated candidates are)
# wrong: __init__ puts the batch norm in eval mode (self.bn.eval()): it normalises by the running statistics, the reference by the batch's
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.0f);
}

torch::Tensor relu(torch::Tensor x) {
    int n = x.numel();
    auto y = torch::empty_like(x);
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = ""

ext = load_inline(
    name="bn_relu_correct_bn_module_then_kernel",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["relu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(num_features)
        self.bn.eval()

    def forward(self, x):
        x = self.bn(x)
        return ext.relu(x)
