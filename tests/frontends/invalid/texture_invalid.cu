// expect: 2:19: error: unsupported type: cudaTextureObject_t
__global__ void k(cudaTextureObject_t t, float* a) { a[0] = tex1Dfetch<float>(t, 0); }
