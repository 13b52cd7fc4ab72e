// RMS normalisation in two launches, compute then normalise: the first kernel writes each row's sum of
// squares (one block per row), the second scales every element by rsqrt(mean square + eps), with the
// mean taken as sum * inv_d, inv_d = 1 / d computed by the host.
#include <cuda_runtime.h>

#define THREADS 128

__global__ void row_sum_squares(const float* __restrict__ x, float* __restrict__ sumsq, int d) {
  __shared__ float buf[THREADS];
  const float* row = x + (long)blockIdx.x * d;
  float acc = 0.0f;
  for (int c = threadIdx.x; c < d; c += blockDim.x) {
    acc += row[c] * row[c];
  }
  buf[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      buf[threadIdx.x] += buf[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    sumsq[blockIdx.x] = buf[0];
  }
}

__global__ void normalise_rows(const float* __restrict__ x, const float* __restrict__ sumsq, float* __restrict__ out,
                               int rows, int d, float inv_d, float eps) {
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < (long)rows * d) {
    const int r = i / d;
    out[i] = x[i] * rsqrtf(sumsq[r] * inv_d + eps);
  }
}

void launch_rms_norm(const float* x, float* sumsq, float* out, int rows, int d, cudaStream_t stream) {
  row_sum_squares<<<rows, THREADS, 0, stream>>>(x, sumsq, d);
  const long n = (long)rows * d;
  normalise_rows<<<(n + 255) / 256, 256, 0, stream>>>(x, sumsq, out, rows, d, 1.0f / d, 1e-6f);
}
