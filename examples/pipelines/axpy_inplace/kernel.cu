// y += alpha * x, updating y in place (an accumulation such as a residual add).
#include <cuda_runtime.h>

__global__ void axpy_inplace(const float* __restrict__ x, float* __restrict__ y, float alpha, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] += alpha * x[i];
  }
}
