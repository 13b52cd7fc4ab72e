// Sum of all elements: a shared-memory tree per block, then one atomicAdd per block. Threads past the
// end return early; exited threads do not count at __syncthreads, and the tree only reads slots of
// threads that exist (i + s < n).
#include <cuda_runtime.h>

__global__ void block_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float buf[256];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    if (i >= n) return;
    buf[tid] = x[i];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s && i + s < n) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, buf[0]);
}
