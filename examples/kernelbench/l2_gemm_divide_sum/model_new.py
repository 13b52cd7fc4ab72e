# ruff: noqa: N803, PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void matmul_kernel(const float* A, const float* B, float* C, int M, int K, int N) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

__global__ void divide_row_sum_kernel(const float* x, float* out, int M, int N, float divisor) {
    int row = blockIdx.x;
    __shared__ float partial[128];
    float s = 0.0f;
    for (int j = threadIdx.x; j < N; j += blockDim.x) s += x[row * N + j] / divisor;
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = partial[0];
}

torch::Tensor matmul(torch::Tensor A, torch::Tensor B) {
    int M = A.size(0), K = A.size(1), N = B.size(1);
    auto C = torch::empty({M, N}, A.options());
    dim3 block(16, 16);
    dim3 grid((N + 15) / 16, (M + 15) / 16);
    matmul_kernel<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, K, N);
    return C;
}

torch::Tensor divide_row_sum(torch::Tensor x, double divisor) {
    int M = x.size(0), N = x.size(1);
    auto out = torch::empty({M, 1}, x.options());
    divide_row_sum_kernel<<<M, 128>>>(x.data_ptr<float>(), out.data_ptr<float>(), M, N, (float)divisor);
    return out;
}
"""

cpp_source = """
torch::Tensor matmul(torch::Tensor A, torch::Tensor B);
torch::Tensor divide_row_sum(torch::Tensor x, double divisor);
"""

ops = load_inline(
    name="gemm_divide_sum",
    cpp_sources=cpp_source,
    cuda_sources=source,
    functions=["matmul", "divide_row_sum"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, divisor: float):
        super(ModelNew, self).__init__()
        self.divisor = divisor
        self.ops = ops

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        x = self.ops.matmul(A, B)
        x = self.ops.divide_row_sum(x, self.divisor)
        return x
