// Sum of n floats in one launch with the "last block" pattern. Each block reduces its part in shared
// memory, and its thread 0 writes the block's sum to partials[blockIdx.x], makes that write visible
// device-wide with __threadfence() (a release fence: the write comes before the ticket), then takes a
// ticket with atomicInc and fences again (an acquire fence: whatever the ticket's release sequence
// carries comes before what follows). The block that draws the last ticket then knows, after
// __syncthreads, every other block's partial, and adds them up. The host zeroes count.

#define THREADS 128

// cache[0] = the sum of cache[0 .. THREADS), each thread having written its own element; called by
// every thread of the block.
__device__ void tree_sum(float* cache) {
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      cache[threadIdx.x] += cache[threadIdx.x + s];
    }
    __syncthreads();
  }
}

__global__ void last_block_sum(const float* __restrict__ x, float* __restrict__ out, float* partials,
                               unsigned int* count, int n) {
  __shared__ float cache[THREADS];
  __shared__ bool is_last;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    acc += x[i];
  }
  cache[threadIdx.x] = acc;
  tree_sum(cache);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = cache[0];
    __threadfence();
    unsigned int ticket = atomicInc(count, gridDim.x);
    __threadfence();
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last) {
    float total = 0.0f;
    for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
      total += partials[b];
    }
    cache[threadIdx.x] = total;
    tree_sum(cache);
    if (threadIdx.x == 0) {
      out[0] = cache[0];
    }
  }
}
