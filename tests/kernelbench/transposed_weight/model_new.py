# ruff: noqa: PLR0402, UP008  (written as generated candidates are)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

conv_transpose1d_source = r"""
#include <torch/extension.h>

// y[b, oc, t] = sum over ic, k of x[b, ic, t - k] * w[oc, ic, k] (stride 1, no padding)
__global__ void conv_transpose1d_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                        float* __restrict__ y, int batch, int cin, int cout, int len,
                                        int klen, int out_len) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = batch * cout * out_len;
    if (idx >= total) return;
    int t = idx % out_len;
    int oc = (idx / out_len) % cout;
    int b = idx / (out_len * cout);
    float acc = 0.0f;
    for (int ic = 0; ic < cin; ++ic) {
        for (int k = 0; k < klen; ++k) {
            int s = t - k;
            if (s >= 0 && s < len) {
                acc += x[(b * cin + ic) * len + s] * w[(oc * cin + ic) * klen + k];
            }
        }
    }
    y[idx] = acc;
}

torch::Tensor conv_transpose1d_cuda(torch::Tensor x, torch::Tensor w) {
    const int batch = x.size(0);
    const int cin = x.size(1);
    const int len = x.size(2);
    const int cout = w.size(0);
    const int klen = w.size(2);
    const int out_len = len + klen - 1;
    auto y = torch::empty({batch, cout, out_len}, x.options());
    const int total = batch * cout * out_len;
    const int threads = 256;
    conv_transpose1d_kernel<<<(total + threads - 1) / threads, threads>>>(
        x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), batch, cin, cout, len, klen, out_len);
    return y;
}
"""

conv_transpose1d_cpp = "torch::Tensor conv_transpose1d_cuda(torch::Tensor x, torch::Tensor w);"

conv_transpose1d = load_inline(
    name="conv_transpose1d",
    cpp_sources=conv_transpose1d_cpp,
    cuda_sources=conv_transpose1d_source,
    functions=["conv_transpose1d_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super(ModelNew, self).__init__()
        # laid out (out, in, k), as a convolution's weight
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels, kernel_size))

    def forward(self, x):
        return conv_transpose1d.conv_transpose1d_cuda(x.contiguous(), self.weight)
