// expect: 3:35: error: unsupported reference argument in memory to a function that accesses memory or synchronises: a[0]
__device__ void acc(float& s, const float* v) { s += v[1]; }
__global__ void k(float* a) { acc(a[0], a); }
