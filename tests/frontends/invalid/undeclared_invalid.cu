// expect: 2:38: error: use of undeclared identifier b
__global__ void k(float* a) { a[0] = b; }
