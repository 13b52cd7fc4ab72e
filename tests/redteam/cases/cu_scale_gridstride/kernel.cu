// y = alpha * x with a grid-stride loop over a capped grid: every element is written exactly once.
#include <cuda_runtime.h>

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, float alpha, int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        y[i] = alpha * x[i];
    }
}
