// expect: 2:57: error: unsupported address of a local variable: &x
__global__ void k(float* a) { float x = 1.f; float* p = &x; p = a; a[0] = *p; }
