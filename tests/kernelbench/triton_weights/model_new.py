# ruff: noqa: E731, N803, N806, PLR0402, UP008  (written as generated Triton candidates are)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_relu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_ok = cols < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        k_ok = ks < K
        xv = tl.load(x_ptr + row * K + ks, mask=k_ok, other=0.0)
        wv = tl.load(w_ptr + cols[:, None] * K + ks[None, :], mask=col_ok[:, None] & k_ok[None, :], other=0.0)
        acc += tl.sum(wv * xv[None, :], axis=1)
    acc += tl.load(b_ptr + cols, mask=col_ok, other=0.0)
    tl.store(y_ptr + row * N + cols, tl.maximum(acc, 0.0), mask=col_ok)


def fused_linear_relu(x, weight, bias):
    assert x.is_cuda and weight.is_cuda, "inputs must be CUDA tensors"
    assert x.device.type == "cuda"
    M, K = x.shape
    N = weight.shape[0]
    y = torch.empty((M, N), device=x.device, dtype=x.dtype)
    grid = lambda meta: (M, triton.cdiv(N, meta["BLOCK_N"]))
    linear_relu_kernel[grid](x, weight, bias, y, M, N, K, BLOCK_N=32, BLOCK_K=32)
    return y


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super(ModelNew, self).__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.contiguous().cuda()
        return fused_linear_relu(x, self.fc.weight, self.fc.bias)
