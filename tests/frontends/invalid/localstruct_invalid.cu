// expect: 2:31: error: unsupported local struct definition: struct S { float v; } s;
__global__ void k(float* a) { struct S { float v; } s; a[0] = 1.f; }
