// One warp per row of at most 32 columns: every lane takes part, lanes past the row contribute 0.
#include <cuda_runtime.h>

__global__ void short_row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    int lane = threadIdx.x;
    float v = lane < d ? x[blockIdx.x * d + lane] : 0.0f;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0) out[blockIdx.x] = v;
}
