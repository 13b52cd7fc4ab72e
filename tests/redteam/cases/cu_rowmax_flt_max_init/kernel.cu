// Row maximum, one warp per row: per-lane running max from -FLT_MAX (the lowest finite float, which
// no f32 input is below), then a butterfly.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void rowmax_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    const float* r = x + blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, r[c]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(~0u, m, o));
    if (threadIdx.x == 0) y[blockIdx.x] = m;
}
