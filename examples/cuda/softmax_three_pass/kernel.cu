// Row softmax in three passes over the row (max, sum of exponentials, normalise), one block per row.
// The block reductions use dynamically sized shared memory: blockDim.x floats, blockDim.x a power of
// two, given at launch as the third <<<>>> argument.

__global__ void softmax_three_pass(const float* __restrict__ x, float* __restrict__ out, int d) {
  extern __shared__ float red[];
  const int tid = threadIdx.x;
  const float* row_in = x + static_cast<size_t>(blockIdx.x) * d;
  float* row_out = out + static_cast<size_t>(blockIdx.x) * d;

  // Pass 1: the row maximum, subtracted below so that expf cannot overflow.
  float m = -INFINITY;
  for (int j = tid; j < d; j += blockDim.x) {
    m = fmaxf(m, row_in[j]);
  }
  red[tid] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      red[tid] = fmaxf(red[tid], red[tid + s]);
    }
    __syncthreads();
  }
  const float row_max = red[0];
  __syncthreads();  // every thread has read red[0] before pass 2 overwrites it

  // Pass 2: the sum of exponentials.
  float sum = 0.0f;
  for (int j = tid; j < d; j += blockDim.x) {
    sum += expf(row_in[j] - row_max);
  }
  red[tid] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      red[tid] += red[tid + s];
    }
    __syncthreads();
  }
  const float inv_sum = 1.0f / red[0];

  // Pass 3: normalise.
  for (int j = tid; j < d; j += blockDim.x) {
    row_out[j] = expf(row_in[j] - row_max) * inv_sum;
  }
}
