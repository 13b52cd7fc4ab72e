// expect: 2:41: error: unsupported __activemask: __activemask()
__global__ void k(unsigned* a) { a[0] = __activemask(); }
