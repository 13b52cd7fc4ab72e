// out = x + bias (broadcast over rows), where bias is optional: the host passes nullptr for none.
#include <cuda_runtime.h>

__global__ void add_optional_bias(const float* __restrict__ x, const float* __restrict__ bias, float* __restrict__ out,
                                  int rows, int d) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * d) {
    float v = x[i];
    if (bias != nullptr) {
      v += bias[i % d];
    }
    out[i] = v;
  }
}
