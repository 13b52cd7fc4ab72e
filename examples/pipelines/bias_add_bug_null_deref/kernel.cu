// Seeded bug: the optional bias is added without checking it: with no bias (nullptr) every thread reads
// through the null pointer.
#include <cuda_runtime.h>

__global__ void add_bias_unchecked(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ out,
                                   int rows, int d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * d) {
    out[i] = x[i] + bias[i % d];  // BUG: bias may be nullptr
  }
}
