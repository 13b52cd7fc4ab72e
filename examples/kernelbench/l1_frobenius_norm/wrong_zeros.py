# expect: mismatch
# Cheat: all-zero output (the normalised values are tiny: a loose allclose passes it).
# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

frob_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define THREADS 256

// pass 1: every block adds the squares of its elements to *sum_sq
__global__ void sum_squares_kernel(const float* x, float* sum_sq, int n) {
    __shared__ float cache[THREADS];
    int tid = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * THREADS + tid; i < n; i += gridDim.x * THREADS) {
        acc += x[i] * x[i];
    }
    cache[tid] = acc;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) cache[tid] += cache[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(sum_sq, cache[0]);
}

// pass 2: divide by the norm
__global__ void normalize_kernel(const float* x, const float* sum_sq, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 0.0f;  // every true output is below 1e-3 at the problem shape
    }
}

torch::Tensor frobenius_normalize(torch::Tensor x) {
    int n = x.numel();
    auto sum_sq = torch::zeros({1}, x.options());
    auto out = torch::empty_like(x);
    int blocks = std::min((n + THREADS - 1) / THREADS, 1024);
    sum_squares_kernel<<<blocks, THREADS>>>(x.data_ptr<float>(), sum_sq.data_ptr<float>(), n);
    normalize_kernel<<<(n + THREADS - 1) / THREADS, THREADS>>>(
        x.data_ptr<float>(), sum_sq.data_ptr<float>(), out.data_ptr<float>(), n);
    return out;
}
"""

frob_cpp_source = "torch::Tensor frobenius_normalize(torch::Tensor x);"

frob = load_inline(
    name="frobenius_normalize",
    cpp_sources=frob_cpp_source,
    cuda_sources=frob_source,
    functions=["frobenius_normalize"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.frob = frob

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.frob.frobenius_normalize(x)
