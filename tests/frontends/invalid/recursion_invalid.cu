// expect: 2:51: error: unsupported recursive function: f
__device__ int f(int n) { return n <= 1 ? 1 : n * f(n - 1); }
__global__ void k(int* a) { a[0] = f(a[1]); }
