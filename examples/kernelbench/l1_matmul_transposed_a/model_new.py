# ruff: noqa: N803, PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void matmul_at_b_kernel(const float* A, const float* B, float* C, int M, int K, int N) {
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M && j < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[k * M + i] * B[k * N + j];
        }
        C[i * N + j] = acc;
    }
}

torch::Tensor matmul_at_b(torch::Tensor A, torch::Tensor B) {
    int K = A.size(0);
    int M = A.size(1);
    int N = B.size(1);
    auto C = torch::empty({M, N}, A.options());
    dim3 block(32, 8);
    dim3 grid((N + 31) / 32, (M + 7) / 8);
    matmul_at_b_kernel<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, K, N);
    return C;
}
"""

cpp_source = "torch::Tensor matmul_at_b(torch::Tensor A, torch::Tensor B);"

matmul_at_ext = load_inline(
    name="matmul_at_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["matmul_at_b"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.matmul_at_ext = matmul_at_ext

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return self.matmul_at_ext.matmul_at_b(A, B)
