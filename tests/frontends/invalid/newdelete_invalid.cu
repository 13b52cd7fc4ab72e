// expect: 2:42: error: unsupported dynamic allocation: new float[4]
__global__ void k(float* a) { float* p = new float[4]; a[0] = p[0]; }
