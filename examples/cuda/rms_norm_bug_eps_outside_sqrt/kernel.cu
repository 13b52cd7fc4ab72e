// Seeded bug (mismatch): epsilon is added after the square root instead of under it.
// RMSNorm as in LLM serving code: out = x * rsqrt(mean(x^2) + eps) * weight, one block per token.
// Thread 0 turns the block's sum of squares into the inverse RMS and shares it through shared
// memory. The launcher picks the block size the way serving code does.
#include <cuda_runtime.h>

#include "../common/common.cuh"

__global__ void rms_norm_kernel(float* __restrict__ out, const float* __restrict__ input,
                                const float* __restrict__ weight, const float epsilon, const int num_tokens,
                                const int hidden_size) {
  __shared__ float warp_partials[WARP_SIZE];
  __shared__ float s_inv_rms;
  const size_t row = blockIdx.x;

  float variance = 0.0f;
  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float v = input[row * hidden_size + idx];
    variance += v * v;
  }
  variance = block_reduce_sum(variance, warp_partials);
  if (threadIdx.x == 0) {
    s_inv_rms = 1.0f / (sqrtf(variance / hidden_size) + epsilon);  // BUG: eps belongs under the root
  }
  __syncthreads();

  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float v = input[row * hidden_size + idx];
    out[row * hidden_size + idx] = v * s_inv_rms * weight[idx];
  }
}

void rms_norm(float* out, const float* input, const float* weight, float epsilon, int num_tokens,
              int hidden_size, cudaStream_t stream) {
  const dim3 grid(num_tokens);
  const dim3 block(CDIV(hidden_size < 1024 ? hidden_size : 1024, WARP_SIZE) * WARP_SIZE);
  rms_norm_kernel<<<grid, block, 0, stream>>>(out, input, weight, epsilon, num_tokens, hidden_size);
}
