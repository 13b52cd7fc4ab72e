// expect: 2:89: error: assignment through a pointer to const
__global__ void k(const float* a) { float* b = (float*)a; b[0] = 1; const float* c = a; c[0] = 2.f; }
