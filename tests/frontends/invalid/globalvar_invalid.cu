// expect: 2:1: error: unsupported global variable: __device__ float g;
__device__ float g;
__global__ void k(float* a) { a[0] = g; }
