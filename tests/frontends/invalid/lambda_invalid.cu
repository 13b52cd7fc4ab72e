// expect: 2:80: error: unsupported use of a lambda other than calling it: f
__global__ void k(float* a) { auto f = [](float x) { return x * 2; }; auto g = f; a[0] = g(a[0]); }
