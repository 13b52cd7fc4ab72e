// expect: 3:38: error: unsupported __constant__ memory without an initialiser (larkc needs its value): coeffs
__constant__ float coeffs[16];
__global__ void k(float* a) { a[0] = coeffs[0]; }
