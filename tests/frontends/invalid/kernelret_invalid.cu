// expect: 2:12: error: a __global__ function must return void
__global__ int k(float* a) { return 1; }
