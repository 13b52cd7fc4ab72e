// Sums of 16-element segments, two per warp, with width-16 shuffles. The loop starts at offset 16 (copied
// from the full-warp version): with width 16 a source lane past the segment returns the caller's own
// value, so the first step doubles every partial.
#include <cuda_runtime.h>

__global__ void seg16_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n_seg) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int seg = t / 16;
    float v = seg < n_seg ? x[t] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off, 16);
    if ((t & 15) == 0 && seg < n_seg) out[seg] = v;
}
