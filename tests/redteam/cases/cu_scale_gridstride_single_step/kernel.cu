// y = alpha * x, launched with a capped grid ("persistent" style). The author meant a grid-stride loop
// but wrote a single step: elements past gridDim.x * blockDim.x are never written.
#include <cuda_runtime.h>

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = alpha * x[i];
    }
}
