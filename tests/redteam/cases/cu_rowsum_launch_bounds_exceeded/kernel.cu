// Row sum, one block per row, the block as wide as the row needs up to 256 threads. The kernel was
// tuned with __launch_bounds__(128) (register budget for 128 threads): a launch with more threads per
// block than the bound fails ("too many resources requested for launch") - for every row over 128.
#include <cuda_runtime.h>

__global__ void __launch_bounds__(128) row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    __shared__ float warp_sums[8];
    float acc = 0.0f;
    for (int c = threadIdx.x; c < d; c += blockDim.x) acc += x[blockIdx.x * d + c];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int w = 0; w < blockDim.x / 32; ++w) s += warp_sums[w];
        out[blockIdx.x] = s;
    }
}
