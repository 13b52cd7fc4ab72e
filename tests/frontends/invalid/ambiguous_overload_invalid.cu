// expect: 4:45: error: ambiguous call of overloaded function f
__device__ float f(float x) { return x; }
__device__ double f(double x) { return x; }
__global__ void k(float* a, int n) { a[0] = f(n); }
