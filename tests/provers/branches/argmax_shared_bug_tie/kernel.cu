// Row argmax, one block per row: strided per-thread scan, then a tree reduction in shared memory where a
// thread takes its partner's candidate when it is larger, or equal with a smaller index (torch.argmax
// returns the first maximum). The block size is a power of two.
#include <math.h>

#define THREADS 64

__global__ void block_argmax(const float* __restrict__ x, long long* __restrict__ out, int cols) {
  __shared__ float s_val[THREADS];
  __shared__ int s_idx[THREADS];
  const int row = blockIdx.x;
  const int tid = threadIdx.x;
  float best = -INFINITY;
  int best_idx = cols;
  for (int j = tid; j < cols; j += blockDim.x) {
    const float v = x[(size_t)row * cols + j];
    if (v > best) {
      best = v;
      best_idx = j;
    }
  }
  s_val[tid] = best;
  s_idx[tid] = best_idx;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      const float other = s_val[tid + stride];
      const int other_idx = s_idx[tid + stride];
      if (other > s_val[tid] || (other == s_val[tid] && other_idx > s_idx[tid])) {
        s_val[tid] = other;
        s_idx[tid] = other_idx;
      }
    }
    __syncthreads();
  }
  if (tid == 0) out[row] = s_idx[0];
}
