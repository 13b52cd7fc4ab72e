# ruff: noqa: N803, N806, PLR0402
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>

#define TILE 16

// C[i, j] = sum_k A[i, k] * Bt[j, k]: B is passed transposed, so both reads run along rows
__global__ void matmul_bt_kernel(const float* A, const float* Bt, float* C, int M, int N, int K) {
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * Bt[col * K + k];
        }
        C[row * N + col] = acc;
    }
}

torch::Tensor matmul_bt(torch::Tensor A, torch::Tensor Bt) {
    const int M = A.size(0);
    const int K = A.size(1);
    const int N = Bt.size(0);
    TORCH_CHECK(Bt.size(1) == K, "inner sizes differ");
    auto C = torch::zeros({M, N}, A.options());
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_bt_kernel<<<grid, block>>>(A.data_ptr<float>(), Bt.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
    return C;
}
"""

ext = load_inline(
    name="matmul_bt",
    cpp_sources="torch::Tensor matmul_bt(torch::Tensor A, torch::Tensor Bt);",
    cuda_sources=cuda_src,
    functions=["matmul_bt"],
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, use_kernel=True):
        super().__init__()
        self.use_kernel = use_kernel
        self.kernel = ext

    def forward(self, A, B):
        if not A.is_cuda:
            A = A.cuda()
        if not B.is_contiguous():
            B = B.contiguous()
        if self.use_kernel and A.dtype == torch.float32:
            Bt = B.t().contiguous()
            return self.kernel.matmul_bt(A.contiguous(), Bt)
        return torch.matmul(A, B)
