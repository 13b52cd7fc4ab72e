// Gated activation with the activation passed as a template argument, the way LLM-serving code
// writes one kernel for several activations: act_and_mul<scalar_t, ACT>. The row of a token is
// [x | y], each half `d` wide; the output is ACT(x) * y, computed in float.
#include <cuda_fp16.h>

#include <cstdint>

namespace act {

template <typename T>
__device__ __forceinline__ T silu(const T& x) {
  const float f = static_cast<float>(x);
  return static_cast<T>(f / (1.0f + expf(-f)));
}

template <typename T>
__device__ __forceinline__ T gelu(const T& x) {
  // exact GELU: 0.5 * x * (1 + erf(x / sqrt(2)))
  const float f = static_cast<float>(x);
  return static_cast<T>(0.5f * f * (1.0f + erff(f * 0.70710678118654752f)));
}

}  // namespace act

template <typename scalar_t, scalar_t (*ACT_FN)(const scalar_t&)>
__global__ void act_and_mul(scalar_t* __restrict__ out,          // [tokens, d]
                            const scalar_t* __restrict__ input,  // [tokens, 2 * d]
                            const int d) {
  const int64_t token = blockIdx.x;
  for (int64_t idx = threadIdx.x; idx < d; idx += blockDim.x) {
    const scalar_t x = __ldg(&input[token * 2 * d + idx]);
    const scalar_t y = __ldg(&input[token * 2 * d + d + idx]);
    out[token * d + idx] = ACT_FN(x) * y;
  }
}
