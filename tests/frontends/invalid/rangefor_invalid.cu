// expect: 2:43: error: unsupported range-based for loop: for (float v : b) a[0] += v;
__global__ void k(float* a) { float b[4]; for (float v : b) a[0] += v; }
