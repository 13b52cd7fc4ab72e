# ruff: noqa: PLR0402, UP008  (written as KernelBench problems and generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>

// one block per row: thread j computes sigmoid(x[row] . w[:, j]); a shared-memory sum over j
__global__ void matmul_sigmoid_sum_kernel(const float* x, const float* w, float* out, int in_f, int hid) {
    extern __shared__ float vals[];
    int row = blockIdx.x;
    float acc = 0.0f;
    for (int j = threadIdx.x; j < hid; j += blockDim.x) {
        float dot = 0.0f;
        for (int k = 0; k < in_f; ++k) {
            dot += x[row * in_f + k] * w[k * hid + j];
        }
        acc += 1.0f / (1.0f + expf(-dot));
    }
    vals[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) vals[threadIdx.x] += vals[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = vals[0];
}

torch::Tensor matmul_sigmoid_sum(torch::Tensor x, torch::Tensor w) {
    int batch = x.size(0), in_f = x.size(1), hid = w.size(1);
    auto out = torch::empty({batch, 1}, x.options());
    int threads = 32;
    matmul_sigmoid_sum_kernel<<<batch, threads, threads * sizeof(float)>>>(
        x.data_ptr<float>(), w.data_ptr<float>(), out.data_ptr<float>(), in_f, hid);
    return out;
}
"""

cpp_source = "torch::Tensor matmul_sigmoid_sum(torch::Tensor x, torch::Tensor w);"

fused_ext = load_inline(
    name="fused_ext",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["matmul_sigmoid_sum"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.fused_ext = fused_ext

    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return self.fused_ext.matmul_sigmoid_sum(x, w)
