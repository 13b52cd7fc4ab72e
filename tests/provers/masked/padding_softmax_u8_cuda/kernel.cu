// Softmax over the keys a 0/1 padding mask (uint8, as older attention code passes it) keeps; one warp
// per row, padded keys and lanes past the row at -inf (weight 0). A fully padded row is NaN, as in torch.
#include <math.h>

__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__global__ void padded_softmax(const float* __restrict__ scores, const unsigned char* __restrict__ keep,
                               float* __restrict__ probs, int n_keys) {
    const int row = blockIdx.x;
    const int lane = threadIdx.x;
    const long base = (long)row * n_keys;
    float v = -INFINITY;
    if (lane < n_keys && keep[base + lane]) v = scores[base + lane];
    const float row_max = warp_max(v);
    const float e = expf(v - row_max);
    const float total = warp_sum(e);
    if (lane < n_keys) probs[base + lane] = e / total;
}
