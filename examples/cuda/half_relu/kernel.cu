// ReLU on __half data, two elements per thread through half2 and __hmax2; an odd last element is
// handled by thread 0 with the scalar __hmax.
#include <cuda_fp16.h>

__global__ void half_relu(const __half* __restrict__ x, __half* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // index of a pair of elements
  const int pairs = n / 2;
  if (i < pairs) {
    const half2 v = reinterpret_cast<const half2*>(x)[i];
    reinterpret_cast<half2*>(out)[i] = __hmax2(v, __float2half2_rn(0.0f));
  }
  if (i == 0 && (n & 1)) {
    out[n - 1] = __hmax(x[n - 1], __float2half(0.0f));
  }
}
