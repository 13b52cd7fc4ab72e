// Rotate each row of 32 left by one inside a warp: lane i takes lane i + 1's value. For lane 31 the
// source lane is 32, which __shfl_sync takes modulo the width (32): lane 0, the wrap-around a rotation
// needs.
#include <cuda_runtime.h>

__global__ void rotate_left_kernel(const float* __restrict__ x, float* __restrict__ y) {
    const int lane = threadIdx.x;
    float v = x[blockIdx.x * 32 + lane];
    y[blockIdx.x * 32 + lane] = __shfl_sync(0xffffffffu, v, lane + 1);
}
