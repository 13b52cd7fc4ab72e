# ruff: noqa  (written as generated candidates are)
# wrong: F.batch_norm with the running statistics (the inference formula) before the kernel
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
    name="bn_relu_wrong_running_stats_step",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["relu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        x = F.batch_norm(x, self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias, False, 0.1, 1e-5)
        return ext.relu(x)
