// Row sums, one block per row: each thread accumulates a strided slice of the row, then the block
// combines the partial sums with the classic shared-memory tree. BLOCK must equal blockDim.x and be a
// power of two.

template <int BLOCK>
__global__ void row_sum_shared(const float* __restrict__ x, float* __restrict__ out, int d) {
  __shared__ float partial[BLOCK];
  const int tid = threadIdx.x;
  const float* row = x + static_cast<size_t>(blockIdx.x) * d;

  float acc = 0.0f;
  for (int j = tid; j < d; j += BLOCK) {
    acc += row[j];
  }
  partial[tid] = acc;
  __syncthreads();

  for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
    if (tid < stride) {
      partial[tid] += partial[tid + stride];
    }
    __syncthreads();
  }
  if (tid == 0) {
    out[blockIdx.x] = partial[0];
  }
}
