// Gated activation of LLM MLP blocks (SwiGLU): the input row of a token is [x | y], each half `d`
// wide, and the output is silu(x) * y. One block per token; the threads stride over the row.
// Templated on the storage type; arithmetic is done in float.
#include <cstdint>

#include "../common/common.cuh"

__device__ __forceinline__ float silu_f(float x) { return x / (1.0f + expf(-x)); }

template <typename scalar_t>
__global__ void silu_and_mul_kernel(scalar_t* __restrict__ out,          // [tokens, d]
                                    const scalar_t* __restrict__ input,  // [tokens, 2 * d]
                                    const int d) {
  const int64_t token = blockIdx.x;
  const scalar_t* x_row = input + token * 2 * d;
  const scalar_t* y_row = x_row + d;
  for (int64_t idx = threadIdx.x; idx < d; idx += blockDim.x) {
    const float x = to_float(x_row[idx]);
    const float y = to_float(y_row[idx]);
    store_float(&out[token * d + idx], silu_f(x) * y);
  }
}
