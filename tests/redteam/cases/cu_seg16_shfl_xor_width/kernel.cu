// Sums of 16-element segments, two per warp: a width-16 butterfly from offset 8 stays in the segment.
#include <cuda_runtime.h>

__global__ void seg16_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n_seg) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int seg = t / 16;
    float v = seg < n_seg ? x[t] : 0.0f;
    for (int off = 8; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off, 16);
    if ((t & 15) == 0 && seg < n_seg) out[seg] = v;
}
