# expect: mismatch
# Bug: adds the linear layer's bias but not the extra learned bias (self.bias).
# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>

#define THREADS 256

// One thread per output element: the dot product of a row of x and a row of w, the linear layer's bias, a sigmoid.
__global__ void fc_bias_sigmoid(const float* __restrict__ x, const float* __restrict__ w,
                                const float* __restrict__ fc_bias,
                                float* __restrict__ out, int rows, int k, int cols) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= rows * cols) return;
    int r = idx / cols;
    int c = idx % cols;
    float acc = 0.0f;
    for (int i = 0; i < k; ++i) {
        acc += x[r * k + i] * w[c * k + i];
    }
    acc += fc_bias[c];
    out[idx] = 1.0f / (1.0f + expf(-acc));
}

torch::Tensor forward_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    int rows = x.size(0);
    int k = x.size(1);
    int cols = w.size(0);
    auto out = torch::empty({rows, cols}, x.options());
    int blocks = (rows * cols + THREADS - 1) / THREADS;
    fc_bias_sigmoid<<<blocks, THREADS>>>(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
                                         out.data_ptr<float>(), rows, k, cols);
    return out;
}
"""

cpp_source = "torch::Tensor forward_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b);"

fused = load_inline(
    name="fc_bias_sigmoid",
    cpp_sources=cpp_source,
    cuda_sources=source,
    functions=["forward_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape) * 0.02)
        self.fused = fused

    def forward(self, x):
        w = self.fc.weight
        return self.fused.forward_cuda(x.contiguous(), w, self.fc.bias)
