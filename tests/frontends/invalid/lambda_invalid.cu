// expect: 2:40: error: unsupported lambda expression: [](float x) { return x * 2; }
__global__ void k(float* a) { auto f = [](float x) { return x * 2; }; a[0] = f(a[0]); }
