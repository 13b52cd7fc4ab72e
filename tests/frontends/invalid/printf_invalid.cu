// expect: 2:31: error: unsupported call of printf: printf("%f\n", a[0])
__global__ void k(float* a) { printf("%f\n", a[0]); }
