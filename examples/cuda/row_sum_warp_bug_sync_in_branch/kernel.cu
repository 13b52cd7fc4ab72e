// Seeded bug (divergence): the block barrier was moved inside the lane-0 branch.
// Row sums, one block per row, reduced with warp shuffles: each warp folds its 32 partial sums with
// __shfl_down_sync, lane 0 of every warp parks the result in shared memory, and warp 0 folds those.
// blockDim.x must be a multiple of 32 (every warp full) and at most 1024.

#define WARP_SIZE 32
#define MAX_WARPS (1024 / WARP_SIZE)

// After the loop lane 0 holds the sum over the warp; the other lanes hold partial sums.
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffff, v, offset);
  }
  return v;
}

__global__ void __launch_bounds__(1024)
    row_sum_warp(const float* __restrict__ x, float* __restrict__ out, int d) {
  __shared__ float warp_sums[MAX_WARPS];
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  const int num_warps = blockDim.x / WARP_SIZE;
  const float* row = x + static_cast<size_t>(blockIdx.x) * d;

  float v = 0.0f;
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    v += row[j];
  }
  v = warp_sum(v);
  if (lane == 0) {
    warp_sums[warp] = v;
    __syncthreads();  // BUG: barrier inside a branch only lane 0 of each warp takes
  }
  if (warp == 0) {
    v = lane < num_warps ? warp_sums[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) {
      out[blockIdx.x] = v;
    }
  }
}
