// expect: 5:3: error: unsupported grid-wide cooperative group (a barrier across all blocks, which larkc does not model): cg::grid_group grid = cg::this_grid();
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void normalise(float* v, int n) {
  cg::grid_group grid = cg::this_grid();
  if (grid.thread_rank() < n) v[grid.thread_rank()] *= 2.0f;
  grid.sync();
}
