# error: params_created_in_another_order.py:33:9: error: ModelNew's parameter bias (Parameter(torch.randn(...) * 0.02) of shape [512]) is not Model's in its place, gemm.weight (Linear.weight of shape [512, 256]) (equal values need the same order, shapes and initialisers)
# reference: l2_linear_bias_sigmoid
# ruff: noqa: E501, PLR0402, UP008
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
__global__ void affine_kernel(const float* x, const float* w, const float* b, float* y, int n, int k, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * m) {
        float acc = b[i % m];
        for (int j = 0; j < k; ++j) acc += x[(i / m) * k + j] * w[(i % m) * k + j];
        y[i] = 1.0f / (1.0f + expf(-acc));
    }
}

torch::Tensor affine(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    auto y = torch::empty({x.size(0), w.size(0)}, x.options());
    int n = x.size(0), k = x.size(1), m = w.size(0);
    affine_kernel<<<(n * m + 255) / 256, 256>>>(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
                                                y.data_ptr<float>(), n, k, m);
    return y;
}
"""

ext = load_inline(name="ext", cpp_sources="", cuda_sources=cuda_source, functions=["affine"])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super(ModelNew, self).__init__()
        self.bias = nn.Parameter(torch.randn(bias_shape) * 0.02)
        self.gemm = nn.Linear(in_features, out_features)
        self.ext = ext

    def forward(self, x):
        return self.ext.affine(x, self.gemm.weight, self.bias)
