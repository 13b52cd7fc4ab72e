// expect: 2:40: error: unsupported cooperative groups function: cooperative_groups::this_grid()
__global__ void k(float* a) { auto g = cooperative_groups::this_grid(); g.sync(); }
