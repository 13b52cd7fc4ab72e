// expect: 3:44: error: unsupported lambda expression: [](float x) { return x * 2; }
__device__ float apply(float x) { return x; }
__global__ void k(float* a) { a[0] = apply([](float x) { return x * 2; }); }
