# ruff: noqa: N803, PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

__global__ void bmm_kernel(const float* A, const float* B, float* C, int m, int k, int n) {
    int b = blockIdx.z;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        const float* a = A + (size_t)b * m * k;
        const float* bb = B + (size_t)b * k * n;
        float acc = 0.0f;
        for (int i = 0; i < k; ++i) {
            acc += a[row * k + i] * bb[i * n + col];
        }
        C[(size_t)b * m * n + row * n + col] = acc;
    }
}

torch::Tensor bmm_cuda(torch::Tensor A, torch::Tensor B) {
    int batch = A.size(0), m = A.size(1), k = A.size(2), n = B.size(2);
    auto C = torch::empty({batch, m, n}, A.options());
    dim3 threads(16, 16);
    dim3 blocks((n + threads.x - 1) / threads.x, (m + threads.y - 1) / threads.y, batch);
    bmm_kernel<<<blocks, threads>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), m, k, n);
    return C;
}
"""

cpp_source = "torch::Tensor bmm_cuda(torch::Tensor A, torch::Tensor B);"

bmm_ext = load_inline(
    name="bmm_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["bmm_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.bmm_ext = bmm_ext

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return self.bmm_ext.bmm_cuda(A, B)
