# expect: mismatch
# Cheat: a constant output, 1/dim (every softmax row sums to 1).
# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    __shared__ float buf[BLOCK];
    int row = blockIdx.x;
    int tid = threadIdx.x;
    const float* xr = x + (long)row * cols;
    float* yr = y + (long)row * cols;

    float m = -INFINITY;
    for (int j = tid; j < cols; j += BLOCK) {
        m = fmaxf(m, xr[j]);
    }
    buf[tid] = m;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            buf[tid] = fmaxf(buf[tid], buf[tid + s]);
        }
        __syncthreads();
    }
    float row_max = buf[0];
    __syncthreads();

    float sum = 0.0f;
    for (int j = tid; j < cols; j += BLOCK) {
        sum += expf(xr[j] - row_max);
    }
    buf[tid] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            buf[tid] += buf[tid + s];
        }
        __syncthreads();
    }
    float total = buf[0];

    for (int j = tid; j < cols; j += BLOCK) {
        yr[j] = 1.0f / cols;  // the mean of every true output: close to all of them for a long row
    }
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    TORCH_CHECK(x.dim() == 2, "x must be 2-D");
    int rows = x.size(0);
    int cols = x.size(1);
    auto y = torch::empty_like(x);
    softmax_kernel<<<rows, BLOCK>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(
    name="softmax_ext",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["softmax_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.softmax = softmax_ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.softmax.softmax_cuda(x)
