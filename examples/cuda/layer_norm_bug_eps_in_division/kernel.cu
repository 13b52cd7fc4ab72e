// Seeded bug: a LayerNorm whose epsilon went inside the division of the variance,
// rsqrtf(sum_sq / (d + eps)) instead of rsqrtf(sum_sq / d + eps). For rows whose variance is far
// from zero the two differ by a relative eps/d, invisible at float32 tolerance; for near-constant
// rows the variance is near zero and the missing eps makes the output explode.
// One block per row; two block reductions (mean, then the centred sum of squares).
#include <cstdint>

#include "../common/common.cuh"

__global__ void __launch_bounds__(256)
    layer_norm(const float* __restrict__ x, const float* __restrict__ weight, const float* __restrict__ bias,
               float* __restrict__ out, float eps, int d) {
  __shared__ float warp_partials[WARP_SIZE];
  const int64_t offset = static_cast<int64_t>(blockIdx.x) * d;
  const float* row_in = x + offset;
  float* row_out = out + offset;

  float sum = 0.0f;
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    sum += row_in[j];
  }
  const float mean = block_reduce_sum(sum, warp_partials) / d;

  float sq = 0.0f;
  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    const float c = row_in[j] - mean;
    sq += c * c;
  }
  const float rstd = rsqrtf(block_reduce_sum(sq, warp_partials) / (d + eps));  // BUG: eps inside the division

  for (int j = threadIdx.x; j < d; j += blockDim.x) {
    row_out[j] = (row_in[j] - mean) * rstd * weight[j] + bias[j];
  }
}
