// expect: 2:43: error: syntax error: expected ;
__global__ void k(float* a) { a[0] = 1.f }
