// sqrt(max(x - 1, 0)) written with a branch: the square root runs only where its argument is positive.
#include <cuda_runtime.h>

__global__ void hinge_sqrt_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v > 1.0f) {
            y[i] = sqrtf(v - 1.0f);
        } else {
            y[i] = 0.0f;
        }
    }
}
