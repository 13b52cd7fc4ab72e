// expect: 2:44: error: unsupported null pointer: 0
__global__ void k(float* out) { float* p = 0; out[0] = *p; }
