// expect: 2:47: error: atomicAdd through a pointer to const
__global__ void k(const float* a) { atomicAdd(a, 1.0f); }
