// Inclusive prefix sum of rows of at most 32 elements, one warp per row, Hillis-Steele with
// __shfl_up_sync; lanes below the offset get their own value back from the shuffle and keep v.
#include <cuda_runtime.h>

__global__ void warp_scan_kernel(const float* __restrict__ x, float* __restrict__ y, int d) {
    const unsigned lane = threadIdx.x;
    float v = lane < d ? x[blockIdx.x * d + lane] : 0.0f;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        float up = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset) v += up;
    }
    if (lane < d) y[blockIdx.x * d + lane] = v;
}
