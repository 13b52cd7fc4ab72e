// "Signed square root" feature transform sign(x) * sqrt(|x|), written without the abs: sqrtf of a
// negative x is NaN where the reference is defined.
#include <cuda_runtime.h>

__global__ void signed_sqrt_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = copysignf(sqrtf(v), v);
    }
}
