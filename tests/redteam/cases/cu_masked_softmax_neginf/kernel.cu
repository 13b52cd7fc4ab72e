// Attention-style masked softmax over rows of at most 32 scores, one warp per row: masked positions are
// -inf before the max, so they get probability 0; a fully masked row is NaN, as in torch (-inf - -inf).
#include <cuda_runtime.h>
#include <cstdint>

__global__ void masked_softmax_kernel(const float* __restrict__ s, const bool* __restrict__ mask, float* __restrict__ p, int d) {
    int lane = threadIdx.x;
    int off = blockIdx.x * d + lane;
    float v = -INFINITY;
    if (lane < d && !mask[off]) v = s[off];
    float m = v;
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float e = lane < d ? __expf(v - m) : 0.0f;
    float z = e;
    for (int o = 16; o > 0; o >>= 1) z += __shfl_xor_sync(0xffffffffu, z, o);
    if (lane < d) p[off] = e / z;
}
