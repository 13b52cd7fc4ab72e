// expect: 2:38: error: __shfl_down_sync takes 3 or 4 arguments, got 2
__global__ void k(float* a) { a[0] = __shfl_down_sync(0xffffffff, a[0]); }
