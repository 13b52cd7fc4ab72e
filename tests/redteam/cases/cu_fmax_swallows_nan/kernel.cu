// sqrt(max(x - 1, 0)) with the clamp after the root: sqrtf(x - 1) is NaN for x < 1, and fmaxf returns
// its other operand when one is NaN (IEEE maxNum), so the result is 0 there: correct on a GPU.
#include <cuda_runtime.h>

__global__ void hinge_sqrt_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(sqrtf(x[i] - 1.0f), 0.0f);
}
