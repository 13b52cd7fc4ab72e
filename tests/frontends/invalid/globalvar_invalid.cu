// expect: 3:38: error: unsupported global variable: g
float g;
__global__ void k(float* a) { a[0] = g; }
