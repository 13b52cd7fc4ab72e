// Row sum with exactly d threads per block (d <= 1024), warp shuffles with the full mask, then warp
// partials in shared memory. When d % 32 != 0 the last warp has fewer than 32 threads, and a
// __shfl_xor_sync naming all 32 lanes is undefined: the missing lanes can never take part.
#include <cuda_runtime.h>

__global__ void row_sum_exact_block_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    __shared__ float sums[32];
    float v = x[blockIdx.x * d + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) sums[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < (blockDim.x + 31) / 32; ++w) s += sums[w];
        out[blockIdx.x] = s;
    }
}
