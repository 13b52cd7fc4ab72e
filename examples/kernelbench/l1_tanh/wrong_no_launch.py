# expect: mismatch
# Cheat: returns a fresh buffer and launches nothing (passes where the allocator hands back the reference's memory).
# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void tanh_kernel(const float* input, float* output, int num_elements) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < num_elements) {
        output[idx] = tanhf(input[idx]);
    }
}

torch::Tensor tanh_cuda(torch::Tensor input) {
    auto output = torch::empty_like(input);
    int num_elements = input.numel();
    const int threads = 1024;
    const int blocks = (num_elements + threads - 1) / threads;
    return output;
}
"""

cpp_source = "torch::Tensor tanh_cuda(torch::Tensor x);"

tanh_ext = load_inline(
    name="tanh_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["tanh_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.tanh_ext = tanh_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.tanh_ext.tanh_cuda(x)
