// Seeded bug: vector addition that stores its sum over its input x as well as into out. The output is
// right, but the caller's x is destroyed (x is not declared in-place): larkc run reports input-write.
#include <cuda_runtime.h>

__global__ void vector_add_clobber(float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                                   int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = x[i] + y[i];  // BUG: overwrites the input
    out[i] = x[i];
  }
}
