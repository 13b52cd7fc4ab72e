# ruff: noqa: F401, N812, PLR0402
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.cpp_extension import load_inline

tanh_source = """
#include <torch/extension.h>

__global__ void tanh_kernel(const float* in, float* out, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = tanhf(in[i]);
    }
}

torch::Tensor tanh_forward(torch::Tensor input) {
    TORCH_CHECK(input.is_cuda(), "input must be a CUDA tensor");
    auto output = torch::empty_like(input);
    long n = input.numel();
    int block = 128;
    int grid = (n + block - 1) / block;
    tanh_kernel<<<grid, block>>>(input.data_ptr<float>(), output.data_ptr<float>(), n);
    return output;
}
"""

tanh_ext = load_inline(
    name="tanh_ext",
    cpp_sources="torch::Tensor tanh_forward(torch::Tensor input);",
    cuda_sources=tanh_source,
    functions=["tanh_forward"],
)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.tanh = tanh_ext.tanh_forward

    def forward(self, x):
        """The matmul and the row sums stay in PyTorch; tanh runs in the custom kernel."""
        batch = x.size(0)
        h = F.linear(x, self.linear.weight, self.linear.bias)
        h = self.tanh(h.contiguous())
        return h.sum(dim=1).view(batch, 1)
