// The sum of a vector in two launches: each block of the first reduces its slice to one partial sum
// (a shared-memory tree), then one block of the second sums the partials the same way.
#include <cuda_runtime.h>

#define THREADS 256

// The sum of v over the block (blockDim.x a power of two, at most THREADS), in thread 0: a tree in
// shared memory.
__device__ float block_sum(float v, float* buf) {
  buf[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      buf[threadIdx.x] += buf[threadIdx.x + s];
    }
    __syncthreads();
  }
  return buf[0];
}

__global__ void block_partial_sums(const float* __restrict__ x, float* __restrict__ partials, int n) {
  __shared__ float buf[THREADS];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float total = block_sum(i < n ? x[i] : 0.0f, buf);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
  }
}

__global__ void sum_partials(const float* __restrict__ partials, float* __restrict__ out, int num_partials) {
  __shared__ float buf[THREADS];
  float acc = 0.0f;
  for (int i = threadIdx.x; i < num_partials; i += blockDim.x) {
    acc += partials[i];
  }
  const float total = block_sum(acc, buf);
  if (threadIdx.x == 0) {
    out[0] = total;
  }
}

void launch_sum(const float* x, float* partials, float* out, int n, cudaStream_t stream) {
  const int blocks = (n + THREADS - 1) / THREADS;
  block_partial_sums<<<blocks, THREADS, 0, stream>>>(x, partials, n);
  sum_partials<<<1, THREADS, 0, stream>>>(partials, out, blocks);
}
