// expect: 2:60: error: unsupported memory access in a do-while condition: (a[i] > 0)
__global__ void k(float* a) { int i = 0; do { i++; } while (a[i] > 0); }
