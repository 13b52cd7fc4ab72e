// expect: 2:36: error: unsupported call of unknown function: __syncthreads_count(a[1] > 0)
__global__ void k(int* a) { a[0] = __syncthreads_count(a[1] > 0); }
