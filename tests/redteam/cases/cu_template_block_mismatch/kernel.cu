// Row sum specialised for a block size: partial[BLOCK] and a tree over BLOCK slots. The host launches
// min(BLOCK, next power of 2 of d) threads for short rows "to save threads", so for d < 256 the tree
// reads slots no thread wrote.
#include <cuda_runtime.h>

template <int BLOCK>
__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    __shared__ float partial[BLOCK];
    float acc = 0.0f;
    for (int j = threadIdx.x; j < d; j += blockDim.x) acc += x[blockIdx.x * d + j];
    partial[threadIdx.x] = acc;
    __syncthreads();
#pragma unroll
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && threadIdx.x + s < BLOCK) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
