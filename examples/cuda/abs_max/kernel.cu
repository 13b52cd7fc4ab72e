// Absolute maximum of a tensor (the amax of per-tensor FP8 scaling): warp shuffles reduce within a
// warp, then lane 0 of each warp folds its value into *out with an integer atomicMax. This is exact
// because non-negative IEEE floats order the same way as their bit patterns read as signed ints.
// The host zeroes *out before the launch; blockDim.x is a multiple of 32.

#include "../common/common.cuh"

__device__ __forceinline__ void atomic_max_nonneg(float* addr, float value) {
  atomicMax(reinterpret_cast<int*>(addr), __float_as_int(value));
}

__global__ void abs_max(const float* __restrict__ x, float* __restrict__ out, int n) {
  float m = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    m = fmaxf(m, fabsf(x[i]));
  }
  m = warp_reduce_max(m);
  if (threadIdx.x % WARP_SIZE == 0) {
    atomic_max_nonneg(out, m);
  }
}
