# ruff: noqa: N803, PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

// one warp per row: strided partial dot products, then a shuffle reduction
__global__ void matvec_warp_kernel(const float* A, const float* x, float* y, int M, int K) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp < M) {
        float s = 0.0f;
        for (int k = lane; k < K; k += 32) {
            s += A[(size_t)warp * K + k] * x[k];
        }
        for (int off = 16; off > 0; off /= 2) {
            s += __shfl_xor_sync(0xffffffff, s, off);
        }
        if (lane == 0) {
            y[warp] = s;
        }
    }
}

torch::Tensor matvec_cuda(torch::Tensor A, torch::Tensor B) {
    int M = A.size(0);
    int K = A.size(1);
    auto y = torch::empty({M, 1}, A.options());
    int threads = 256;
    int blocks = (M * 32 + threads - 1) / threads;
    matvec_warp_kernel<<<blocks, threads>>>(A.data_ptr<float>(), B.data_ptr<float>(), y.data_ptr<float>(), M, K);
    return y;
}
"""

cpp_source = "torch::Tensor matvec_cuda(torch::Tensor A, torch::Tensor B);"

matvec_ext = load_inline(
    name="matvec_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["matvec_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.matvec_ext = matvec_ext

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return self.matvec_ext.matvec_cuda(A, B)
