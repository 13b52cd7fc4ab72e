// expect: 5:23: error: unsupported texture or surface function tex1Dfetch (larkc does not model textures or surfaces): tex1Dfetch(texRef, i)
texture<float, 1, cudaReadModeElementType> texRef;
__global__ void gather(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch(texRef, i);
}
