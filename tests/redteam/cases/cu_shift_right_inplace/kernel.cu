// Shift a sequence right by one in place (a KV-cache style "roll" that keeps the first element):
// x[i] = x[i-1] for i >= 1. One thread per element reads its left neighbour, which another thread is
// overwriting in the same launch.
#include <cuda_runtime.h>

__global__ void shift_right_kernel(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 1 && i < n) {
        x[i] = x[i - 1];
    }
}
