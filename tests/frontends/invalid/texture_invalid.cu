// expect: 2:19: error: unsupported texture or surface type (larkc does not model textures or surfaces): cudaTextureObject_t
__global__ void k(cudaTextureObject_t t, float* a) { a[0] = tex1Dfetch<float>(t, 0); }
