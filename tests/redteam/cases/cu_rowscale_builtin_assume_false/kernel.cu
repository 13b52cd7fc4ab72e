// y = x * 2 over rows processed as float2 pairs. The kernel tells the compiler the row length is even
// with __builtin_assume, so nvcc may drop the odd-tail code below: false for odd d (undefined behaviour;
// in practice the last element of each row is never written).
#include <cuda_runtime.h>

__global__ void double_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int d) {
    __builtin_assume(d % 2 == 0);
    const float* xr = x + blockIdx.x * d;
    float* yr = y + blockIdx.x * d;
    for (int c = 2 * threadIdx.x; c + 1 < d; c += 2 * blockDim.x) {
        yr[c] = 2.0f * xr[c];
        yr[c + 1] = 2.0f * xr[c + 1];
    }
    if (d % 2 == 1 && threadIdx.x == 0) yr[d - 1] = 2.0f * xr[d - 1];
}
