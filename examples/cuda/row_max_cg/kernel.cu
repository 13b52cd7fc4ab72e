// Row maximum with cooperative groups: each 32-thread tile reduces with cg::reduce, tile leaders
// publish to shared memory, and the first tile reduces the partials with explicit tile shuffles.
// One block per row; the block size is a multiple of 32 and at most 1024.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cfloat>

namespace cg = cooperative_groups;

__global__ void row_max_cg(const float* __restrict__ x, float* __restrict__ out, int d) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ float partial[32];

  const float* row = x + static_cast<size_t>(blockIdx.x) * d;
  float m = -FLT_MAX;
  for (int i = block.thread_rank(); i < d; i += block.size()) {
    m = fmaxf(m, row[i]);
  }
  m = cg::reduce(tile, m, cg::greater<float>());
  if (tile.thread_rank() == 0) {
    partial[tile.meta_group_rank()] = m;
  }
  block.sync();

  if (tile.meta_group_rank() == 0) {
    float v = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : -FLT_MAX;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      v = fmaxf(v, tile.shfl_xor(v, offset));
    }
    if (tile.thread_rank() == 0) {
      out[blockIdx.x] = v;
    }
  }
}
