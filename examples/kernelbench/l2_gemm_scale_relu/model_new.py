# ruff: noqa: N803, PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

fused_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void gemm_scale_bias_relu_kernel(
    const float* A, const float* B, float* C, int M, int N, int K, float scale, float bias) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        float v = acc * scale + bias;
        C[row * N + col] = v > 0.0f ? v : 0.0f;
    }
}

torch::Tensor gemm_scale_bias_relu(torch::Tensor A, torch::Tensor B, float scale, float bias) {
    const int M = A.size(0);
    const int K = A.size(1);
    const int N = B.size(1);
    auto C = torch::empty({M, N}, torch::TensorOptions().dtype(torch::kFloat32).device(A.device()));
    dim3 threads(16, 16);
    dim3 blocks((N + threads.x - 1) / threads.x, (M + threads.y - 1) / threads.y);
    gemm_scale_bias_relu_kernel<<<blocks, threads>>>(
        A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K, scale, bias);
    return C;
}
"""

fused_cpp_source = "torch::Tensor gemm_scale_bias_relu(torch::Tensor A, torch::Tensor B, float scale, float bias);"

fused = load_inline(
    name="gemm_scale_bias_relu",
    cpp_sources=fused_cpp_source,
    cuda_sources=fused_source,
    functions=["gemm_scale_bias_relu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, scale: float, bias: float):
        super(ModelNew, self).__init__()
        self.scale = scale
        self.bias = bias
        self.fused = fused

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return self.fused.gemm_scale_bias_relu(A, B, self.scale, self.bias)
