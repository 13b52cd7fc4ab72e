// Row sum, one block per row, as many threads as the row needs rounded up to a warp (up to 1024). The
// shared-memory tree halves blockDim.x each step, which only visits every slot when blockDim.x is a
// power of two: with 96 threads the steps are 48, 24, 12, 6, 3, 1, and after the step of 3 slot 2 is
// never added into slot 0 (rows of 65 to 96 columns, 129 to 160, ...).
#include <cuda_runtime.h>

__global__ void row_sum_tree_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    extern __shared__ float buf[];
    const unsigned tid = threadIdx.x;
    buf[tid] = tid < d ? x[blockIdx.x * d + tid] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) buf[tid] += buf[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = buf[0];
}
