// Count of positive elements into one global counter. atomicAdd_block was picked "because it is faster";
// it is atomic only against threads of the same block, and the counter is shared by every block.
#include <cuda_runtime.h>

__global__ void count_positive_kernel(const float* __restrict__ x, int* __restrict__ count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.0f) {
        atomicAdd_block(count, 1);
    }
}
