// expect: 2:38: error: unsupported call of unknown function: my_helper(a[1])
__global__ void k(float* a) { a[0] = my_helper(a[1]); }
