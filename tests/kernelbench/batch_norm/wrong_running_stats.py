# ruff: noqa: F401, PLR0402, UP008  (written as generated candidates are)
# wrong: normalises by the running statistics (inference); KernelBench's harness runs Model in training mode
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

bn_source = """
#include <torch/extension.h>

__global__ void bn_eval_kernel(const float* x, const float* w, const float* b, const float* mean, const float* var,
                               float* y, int n, int cols, float eps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int c = i % cols;
        y[i] = (x[i] - mean[c]) * rsqrtf(var[c] + eps) * w[c] + b[c];
    }
}

torch::Tensor bn_eval(torch::Tensor x, torch::Tensor w, torch::Tensor b, torch::Tensor mean, torch::Tensor var,
                      double eps) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    bn_eval_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
                                             mean.data_ptr<float>(), var.data_ptr<float>(), y.data_ptr<float>(), n,
                                             x.size(1), (float)eps);
    return y;
}
"""

bn = load_inline(name="bn", cpp_sources="", cuda_sources=bn_source, functions=["bn_eval"])


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super(ModelNew, self).__init__()
        self.bn = nn.BatchNorm1d(num_features)

    def forward(self, x):
        return bn.bn_eval(x, self.bn.weight, self.bn.bias, self.bn.running_mean, self.bn.running_var, 1e-5)
