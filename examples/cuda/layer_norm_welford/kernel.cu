// LayerNorm with Welford's one-pass mean and variance: each thread folds its elements into
// (count, mean, M2) with Welford's update, warps merge their states with Chan's parallel formula
// over __shfl_xor_sync, and warp leaders merge through shared memory. One block per row; the block
// size is a multiple of 32 and at most 1024.
#include <cstdint>

#include "../common/common.cuh"

struct Welford {
  float count;
  float mean;
  float m2;
};

__device__ __forceinline__ Welford welford_merge(Welford a, Welford b) {
  const float count = a.count + b.count;
  if (count == 0.0f) {
    return a;
  }
  const float delta = b.mean - a.mean;
  const float wb = b.count / count;
  Welford out;
  out.count = count;
  out.mean = a.mean + delta * wb;
  out.m2 = a.m2 + b.m2 + delta * delta * a.count * wb;
  return out;
}

__device__ __forceinline__ Welford warp_welford(Welford w) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
    Welford other;
    other.count = __shfl_xor_sync(FULL_MASK, w.count, offset);
    other.mean = __shfl_xor_sync(FULL_MASK, w.mean, offset);
    other.m2 = __shfl_xor_sync(FULL_MASK, w.m2, offset);
    w = welford_merge(w, other);
  }
  return w;
}

__global__ void layer_norm_welford(const float* __restrict__ x, const float* __restrict__ weight,
                                   const float* __restrict__ bias, float* __restrict__ out, float eps, int d) {
  __shared__ Welford partials[WARP_SIZE];
  __shared__ float stats[2];
  const int64_t offset = static_cast<int64_t>(blockIdx.x) * d;
  const float* row_in = x + offset;
  float* row_out = out + offset;

  Welford w = {0.0f, 0.0f, 0.0f};
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    const float v = row_in[j];
    w.count += 1.0f;
    const float delta = v - w.mean;
    w.mean += delta / w.count;
    w.m2 += delta * (v - w.mean);
  }
  w = warp_welford(w);
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  if (lane == 0) {
    partials[warp] = w;
  }
  __syncthreads();
  if (warp == 0) {
    Welford v = {0.0f, 0.0f, 0.0f};
    if (lane < blockDim.x / WARP_SIZE) {
      v = partials[lane];
    }
    v = warp_welford(v);
    if (lane == 0) {
      stats[0] = v.mean;
      stats[1] = rsqrtf(v.m2 / d + eps);
    }
  }
  __syncthreads();
  const float mean = stats[0];
  const float rstd = stats[1];
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    row_out[j] = (row_in[j] - mean) * rstd * weight[j] + bias[j];
  }
}
