// Fill with a constant over a 64-bit element count. The count is int64_t, but the index is computed in
// 32-bit int: past 2^31 elements blockIdx.x * blockDim.x overflows.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void fill_kernel(float* __restrict__ out, float value, int64_t n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) out[idx] = value;
}
