// Seeded bug (oob): an off-by-one bounds check.
// Elementwise sum of two float vectors, one element per thread, with the host launcher that usually
// sits beside such a kernel.
#include <cuda_runtime.h>

__global__ void vector_add(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out,
                           int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) {  // BUG: `<=` lets thread n read x[n], y[n] and write out[n], one past the end
    out[i] = x[i] + y[i];
  }
}

void launch_vector_add(const float* x, const float* y, float* out, int n, cudaStream_t stream) {
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  vector_add<<<blocks, threads, 0, stream>>>(x, y, out, n);
}
