// Inverse square root with a zero for non-positive inputs, written as a select: both arms are computed
// but rsqrtf's value is used only where v > 0.
#include <cuda_runtime.h>

__global__ void safe_rsqrt_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float v = x[i];
        y[i] = (v > 0.0f) ? rsqrtf(v) : 0.0f;
    }
}
