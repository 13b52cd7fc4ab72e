// expect: 2:29: error: unsupported type: dim3
__global__ void k(int* a) { dim3 t = threadIdx; a[0] = t.x; }
