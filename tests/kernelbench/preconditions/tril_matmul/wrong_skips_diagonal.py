from torch import nn
from torch.utils.cpp_extension import load_inline

tril_mm_source = r"""
#include <torch/extension.h>

// C[i][j] summed from k = j + 1: the diagonal term is left out
__global__ void tril_mm_kernel(const float* A, const float* B, float* C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < n && col < n) {
        float acc = 0.0f;
        if (col <= row) {
            for (int k = col + 1; k <= row; ++k) {
                acc += A[row * n + k] * B[k * n + col];
            }
        }
        C[row * n + col] = acc;
    }
}

torch::Tensor tril_mm_cuda(torch::Tensor A, torch::Tensor B) {
    int n = A.size(0);
    auto C = torch::empty({n, n}, A.options());
    dim3 block(16, 16);
    dim3 grid((n + 15) / 16, (n + 15) / 16);
    tril_mm_kernel<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), n);
    return C;
}
"""

tril_mm_cpp = "torch::Tensor tril_mm_cuda(torch::Tensor A, torch::Tensor B);"

tril_mm = load_inline(
    name="tril_mm",
    cpp_sources=tril_mm_cpp,
    cuda_sources=tril_mm_source,
    functions=["tril_mm_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.tril_mm = tril_mm

    def forward(self, a, b):
        return self.tril_mm.tril_mm_cuda(a, b)
