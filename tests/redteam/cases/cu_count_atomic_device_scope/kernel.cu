// Count of positive elements into one global counter, with device-scope atomics.
#include <cuda_runtime.h>

__global__ void count_positive_kernel(const float* __restrict__ x, int* __restrict__ count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.0f) {
        atomicAdd(count, 1);
    }
}
