// Row L2 normalisation, one warp per row, with rsqrtf of the sum of squares and no epsilon: a row of
// zeros gives rsqrtf(0) = inf and 0 * inf = NaN, where F.normalize clamps the norm and returns zeros.
#include <cuda_runtime.h>

__global__ void l2norm_kernel(const float* __restrict__ x, float* __restrict__ y, int d) {
    const float* xr = x + blockIdx.x * d;
    float ss = 0.f;
    for (int c = threadIdx.x; c < d; c += 32) ss += xr[c] * xr[c];
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, o);
    const float inv = rsqrtf(ss);
    for (int c = threadIdx.x; c < d; c += 32) y[blockIdx.x * d + c] = xr[c] * inv;
}
