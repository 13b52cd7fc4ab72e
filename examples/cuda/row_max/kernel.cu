// Row maximum: each thread folds a strided part of the row with fmaxf from -INFINITY, warps reduce
// with xor shuffles, warp leaders publish to shared memory and the first warp reduces the partials.
// One block per row; the block size is a multiple of 32 and at most 1024.
#include "../common/common.cuh"

__global__ void row_max(const float* __restrict__ x, float* __restrict__ out, int d) {
  __shared__ float warp_max[WARP_SIZE];
  const float* row = x + static_cast<size_t>(blockIdx.x) * d;
  float m = -INFINITY;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    m = fmaxf(m, row[i]);
  }
  m = warp_reduce_max(m);
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  if (lane == 0) {
    warp_max[warp] = m;
  }
  __syncthreads();
  if (warp == 0) {
    m = lane < blockDim.x / WARP_SIZE ? warp_max[lane] : -INFINITY;
    m = warp_reduce_max(m);
    if (lane == 0) {
      out[blockIdx.x] = m;
    }
  }
}
