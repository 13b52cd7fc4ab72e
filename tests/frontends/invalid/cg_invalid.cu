// expect: 2:40: error: unsupported grid-wide cooperative group (a barrier across all blocks, which larkc does not model): cooperative_groups::this_grid()
__global__ void k(float* a) { auto g = cooperative_groups::this_grid(); g.sync(); }
