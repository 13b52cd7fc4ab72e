// expect: 2:1: error: unsupported __constant__ memory: __constant__ float coeffs[16];
__constant__ float coeffs[16];
__global__ void k(float* a) { a[0] = coeffs[0]; }
