# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

hardsigmoid_source = """
#include <torch/extension.h>

__global__ void hardsigmoid_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = fminf(fmaxf(x[i] + 3.0f, 0.0f), 6.0f) / 6.0f;
    }
}

void hardsigmoid_out(torch::Tensor x, torch::Tensor out) {
    const int n = x.numel();
    const int threads = 256;
    hardsigmoid_kernel<<<(n + threads - 1) / threads, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
}
"""

hardsigmoid_cpp_source = "void hardsigmoid_out(torch::Tensor x, torch::Tensor out);"

hardsigmoid = load_inline(
    name="hardsigmoid",
    cpp_sources=hardsigmoid_cpp_source,
    cuda_sources=hardsigmoid_source,
    functions=["hardsigmoid_out"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.hardsigmoid = hardsigmoid

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        self.hardsigmoid.hardsigmoid_out(x, out)
        return out
