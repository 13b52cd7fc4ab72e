// Symmetric per-tensor int8 quantisation q = clamp(x / scale, -128, 127) truncated: the conversion is
// always of a value in range.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void quantize_int8_kernel(const float* __restrict__ x, int8_t* __restrict__ q, float inv_scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = static_cast<int8_t>(fminf(fmaxf(x[i] * inv_scale, -128.0f), 127.0f));
}
