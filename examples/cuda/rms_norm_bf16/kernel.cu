// RMSNorm on bfloat16 activations and weights; statistics and the product are computed in float
// and rounded to bfloat16 once. One block per token, blockDim.x a multiple of 32.
#include "../common/common.cuh"

typedef __nv_bfloat16 bf16_t;

__global__ void __launch_bounds__(1024)
    rms_norm_bf16(bf16_t* __restrict__ out, const bf16_t* __restrict__ input,
                  const bf16_t* __restrict__ weight, const float epsilon, const int hidden_size) {
  __shared__ float warp_partials[WARP_SIZE];
  const bf16_t* row_in = input + static_cast<size_t>(blockIdx.x) * hidden_size;
  bf16_t* row_out = out + static_cast<size_t>(blockIdx.x) * hidden_size;

  float sum_sq = 0.0f;
  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float v = __bfloat162float(row_in[idx]);
    sum_sq += v * v;
  }
  const float inv_rms = rsqrtf(block_reduce_sum(sum_sq, warp_partials) / hidden_size + epsilon);

  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float v = __bfloat162float(row_in[idx]) * inv_rms * __bfloat162float(weight[idx]);
    row_out[idx] = __float2bfloat16(v);
  }
}
