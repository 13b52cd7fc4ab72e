// expect: 2:45: error: unsupported pointer used as a truth value: b
__global__ void k(float* a, float* b) { if (b) a[0] = 1.f; }
