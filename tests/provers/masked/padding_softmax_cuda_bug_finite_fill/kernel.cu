// Softmax over the keys a padding mask keeps, one warp per row. Padded keys get the score -1e9f, the
// "large negative" of many attention kernels: in float32 their weight underflows to 0, but a fully
// padded row comes out uniform (1/keys) where torch's masked_fill(-inf) gives NaN.
#include <math.h>

__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__global__ void padded_softmax(const float* __restrict__ scores, const bool* __restrict__ keep,
                               float* __restrict__ probs, int n_keys) {
    const int row = blockIdx.x;
    const int lane = threadIdx.x;
    const long base = (long)row * n_keys;
    float v = -INFINITY;
    if (lane < n_keys) v = keep[base + lane] ? scores[base + lane] : -1e9f;  // "minus infinity"
    const float row_max = warp_max(v);
    const float e = expf(v - row_max);
    const float total = warp_sum(e);
    if (lane < n_keys) probs[base + lane] = e / total;
}
