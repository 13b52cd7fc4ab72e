// Histogram of n values in [0, 64): each block counts its values into a histogram in shared memory
// with block-scoped atomics (atomicAdd_block: only the block's own threads touch its shared copy),
// then adds its counts into the global histogram with device-scoped atomicAdd (every block adds to
// the same global bins). The host zeroes hist before the launch.

#define BINS 64

__global__ void histogram(const int* __restrict__ x, int* __restrict__ hist, int n) {
  __shared__ int counts[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    counts[b] = 0;
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    atomicAdd_block(&counts[x[i]], 1);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    if (counts[b] != 0) {
      atomicAdd(&hist[b], counts[b]);
    }
  }
}
