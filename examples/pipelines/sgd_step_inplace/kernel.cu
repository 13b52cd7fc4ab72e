// One SGD step with momentum, updating the parameters and the momentum buffer in place:
//   v = mu * v + g;  w = w - lr * v
#include <cuda_runtime.h>

__global__ void sgd_momentum_step(float* __restrict__ w, float* __restrict__ v, const float* __restrict__ g,
                                  float lr, float mu, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float vi = mu * v[i] + g[i];
    v[i] = vi;
    w[i] = w[i] - lr * vi;
  }
}
