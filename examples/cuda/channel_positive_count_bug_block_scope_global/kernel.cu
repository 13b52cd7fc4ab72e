// Seeded bug (race): the blocks add their counts into the global counts with atomicAdd_block.
// Per-channel count of positive values of a [rows, 64] tensor (channels last), e.g. how often each
// channel of an activation is active. Each block counts its elements into a histogram in shared
// memory with block-scoped atomics (atomicAdd_block: only the block's own threads touch its shared
// copy), then adds its counts into the global histogram with device-scoped atomicAdd (every block
// adds to the same global counts). The host zeroes counts before the launch.

#define CHANNELS 64

__global__ void channel_positive_count(const float* __restrict__ x, int* __restrict__ counts, int rows) {
  __shared__ int block_counts[CHANNELS];
  for (int c = threadIdx.x; c < CHANNELS; c += blockDim.x) {
    block_counts[c] = 0;
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows * CHANNELS; i += blockDim.x * gridDim.x) {
    atomicAdd_block(&block_counts[i % CHANNELS], x[i] > 0.0f ? 1 : 0);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < CHANNELS; c += blockDim.x) {
    atomicAdd_block(&counts[c], block_counts[c]);  // BUG: block scope, but every block adds to counts
  }
}
