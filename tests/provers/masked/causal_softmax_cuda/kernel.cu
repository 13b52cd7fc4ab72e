// Causal softmax, one warp per row of a square score matrix: positions after the row are masked to
// -INFINITY before the max and the sum, as attention kernels do.
#include <cuda_runtime.h>
#include <math.h>

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}

__global__ void causal_softmax(const float* __restrict__ scores, float* __restrict__ out, int n) {
  const int row = blockIdx.x;
  const int lane = threadIdx.x;
  const float* s = scores + (size_t)row * n;
  float m = -INFINITY;
  for (int j = lane; j < n; j += 32) {
    const float v = j <= row ? s[j] : -INFINITY;
    m = fmaxf(m, v);
  }
  m = warp_max(m);
  float sum = 0.0f;
  for (int j = lane; j < n; j += 32) {
    const float v = j <= row ? s[j] : -INFINITY;
    sum += __expf(v - m);
  }
  sum = warp_sum(sum);
  const float inv = 1.0f / sum;
  for (int j = lane; j < n; j += 32) {
    const float v = j <= row ? s[j] : -INFINITY;
    out[(size_t)row * n + j] = __expf(v - m) * inv;
  }
}
