// Helpers shared by several examples: launch arithmetic, warp and block reductions, and conversions
// between float and the 16-bit storage types. Kernels include it as "../common/common.cuh".
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu
#define CDIV(a, b) (((a) + (b) - 1) / (b))

// Butterfly reduction: after the loop every lane of the warp holds the sum of all 32 lanes.
// The whole warp must be active (blockDim.x a multiple of 32).
__device__ __forceinline__ float warp_reduce_sum(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
    v += __shfl_xor_sync(FULL_MASK, v, offset);
  }
  return v;
}

__device__ __forceinline__ float warp_reduce_max(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
    v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
  }
  return v;
}

// Sum of `v` over the whole block, returned to every thread. `warp_partials` is a shared array of at
// least WARP_SIZE floats; blockDim.x must be a multiple of WARP_SIZE. The trailing barrier lets the
// caller reuse `warp_partials` for the next reduction.
__device__ float block_reduce_sum(float v, float* warp_partials) {
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  const int num_warps = blockDim.x / WARP_SIZE;
  v = warp_reduce_sum(v);
  if (lane == 0) {
    warp_partials[warp] = v;
  }
  __syncthreads();
  v = lane < num_warps ? warp_partials[lane] : 0.0f;
  v = warp_reduce_sum(v);
  __syncthreads();
  return v;
}

// Loads and stores of the storage types, computing in float (overloads chosen by the pointer type).
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

__device__ __forceinline__ void store_float(float* dst, float v) { *dst = v; }
__device__ __forceinline__ void store_float(__half* dst, float v) { *dst = __float2half(v); }
__device__ __forceinline__ void store_float(__nv_bfloat16* dst, float v) { *dst = __float2bfloat16(v); }
