// expect: 3:35: error: unsupported __constant__ memory the host writes, in a device function: coeffs
__constant__ float coeffs[16];
__device__ float first() { return coeffs[0]; }
__global__ void k(float* a) { a[0] = first(); }
