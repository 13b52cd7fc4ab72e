// expect: 2:40: error: unsupported call of unknown function: cooperative_groups::this_thread_block()
__global__ void k(float* a) { auto b = cooperative_groups::this_thread_block(); b.sync(); }
