// Kernels named as serving libraries name theirs: a template in a namespace, a helper kernel in an
// anonymous namespace, and two kernels of one short name in two namespaces.
#include <cuda_runtime.h>
#include <cstdint>

namespace vllm {

// out[i] = x[i] * SCALE, VEC elements per thread.
template <typename T, int VEC>
__global__ void scale_kernel(T* __restrict__ out, const T* __restrict__ x, int n, float factor) {
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * VEC;
#pragma unroll
  for (int k = 0; k < VEC; ++k) {
    if (base + k < n) {
      out[base + k] = static_cast<T>(static_cast<float>(x[base + k]) * factor);
    }
  }
}

__global__ void add_kernel(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += x[i];
}

}  // namespace vllm

namespace sglang {

__global__ void add_kernel(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = out[i] + x[i];
}

}  // namespace sglang

namespace {

__global__ void copy_kernel(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i];
}

}  // namespace
