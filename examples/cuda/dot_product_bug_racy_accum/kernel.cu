// Seeded bug (race): the per-block partial sums are added into *out without atomicAdd.
// Dot product: a grid-stride loop accumulates per thread, a shared-memory tree reduces each block,
// and thread 0 of every block adds the block's partial sum into *out with atomicAdd. The host
// zeroes *out before the launch.

#define THREADS 256

__global__ void dot_product(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                            int n) {
  __shared__ float cache[THREADS];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    acc += x[i] * y[i];
  }
  cache[threadIdx.x] = acc;
  __syncthreads();
  for (int s = THREADS / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      cache[threadIdx.x] += cache[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    *out += cache[0];  // BUG: not atomic: thread 0 of every block updates *out concurrently
  }
}
