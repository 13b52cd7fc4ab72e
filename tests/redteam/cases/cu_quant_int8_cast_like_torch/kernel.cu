// int8 quantisation q = int8(x / scale), written to match a reference that casts without a clamp too.
// Both convert out-of-range floats: (int) of a float past 2^31 is undefined, and the narrowing to int8
// of an int past 127 is implementation-defined - neither is a value anyone can rely on.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void quantize_int8_kernel(const float* __restrict__ x, int8_t* __restrict__ q, float inv_scale, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) q[i] = (int8_t)(int)(x[i] * inv_scale);
}
