// Seeded bug: RMSNorm (as in rms_norm) with the row offset computed in 32 bits. Serving kernels were
// written this way and overflowed once a batch grew past 2^31 elements: blockIdx.x * hidden_size is an
// unsigned 32-bit product (hidden_size converts to unsigned), and storing it in an int changes its
// value from 2^31 on. With 65536 features that is token 32768; the small instances of the task are far
// below it, so `larkc run` passes and only `larkc verify` (integer overflow, for all sizes) fails.
#include <cuda_runtime.h>

#include "../common/common.cuh"

__global__ void rms_norm_kernel(float* __restrict__ out, const float* __restrict__ input,
                                const float* __restrict__ weight, const float epsilon, const int num_tokens,
                                const int hidden_size) {
  __shared__ float warp_partials[WARP_SIZE];
  __shared__ float s_inv_rms;
  // BUG: a 32-bit row offset; the fix is `const size_t row = blockIdx.x;` and 64-bit offsets.
  const int row_offset = blockIdx.x * hidden_size;

  float variance = 0.0f;
  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float v = input[row_offset + idx];
    variance += v * v;
  }
  variance = block_reduce_sum(variance, warp_partials);
  if (threadIdx.x == 0) {
    s_inv_rms = rsqrtf(variance / hidden_size + epsilon);
  }
  __syncthreads();

  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float v = input[row_offset + idx];
    out[row_offset + idx] = v * s_inv_rms * weight[idx];
  }
}
