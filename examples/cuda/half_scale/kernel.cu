// Scale a __half tensor by a float, moving eight halves (16 bytes) per thread through a packed
// vector type. The caller guarantees n % 8 == 0.
#include <cuda_fp16.h>

template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T val[N];
};

using half8 = Vec<__half, 8>;

__global__ void half_scale(const __half* __restrict__ x, __half* __restrict__ out, float scale, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 8) {
    const half8 in = reinterpret_cast<const half8*>(x)[i];
    half8 res;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      res.val[j] = __float2half(__half2float(in.val[j]) * scale);
    }
    reinterpret_cast<half8*>(out)[i] = res;
  }
}
