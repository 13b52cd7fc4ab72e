// expect: 3:35: error: unsupported reference argument that is not a local variable: a[0]
__device__ void acc(float& s, float v) { s += v; }
__global__ void k(float* a) { acc(a[0], 1.0f); }
