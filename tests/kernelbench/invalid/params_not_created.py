# error: params_not_created.py:35:38: error: ModelNew.__init__ creates no parameter scales that larkc can read (it creates: linear.weight, linear.bias, scale)
# reference: l2_linear_relu
# ruff: noqa: E501, PLR0402, UP008
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

scale_source = """
__global__ void scale_rows(const float* x, const float* s, float* y, int n, int m) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * m) y[i] = x[i] * s[i % m];
}

torch::Tensor scale(torch::Tensor x, torch::Tensor s) {
    auto y = torch::empty_like(x);
    scale_rows<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), s.data_ptr<float>(), y.data_ptr<float>(),
                                                  x.size(0), x.size(1));
    return y;
}
"""

scale_ext = load_inline(name="scale_ext", cpp_sources="", cuda_sources=scale_source, functions=["scale"])


class ModelNew(nn.Module):
    """Passes a parameter its __init__ never creates (a typo: self.scales for self.scale)."""

    def __init__(self, in_features: int, out_features: int):
        super(ModelNew, self).__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.ones(in_features))
        self.kernels = scale_ext

    def forward(self, x):
        return self.kernels.scale(x, self.scales)
