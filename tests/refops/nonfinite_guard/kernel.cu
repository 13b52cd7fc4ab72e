// Non-finite guard before a reduction, the way serving frameworks sanitise logits or activations:
// every element that is an infinity or NaN becomes 0, the others are scaled. isinf/isnan are the
// CUDA math library's overloads for float.
#include <cuda_runtime.h>

__global__ void nonfinite_guard_kernel(float* __restrict__ out, const float* __restrict__ input,
                                       const float scale, const int num_elems) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < num_elems; i += blockDim.x * gridDim.x) {
    const float v = input[i];
    out[i] = (isinf(v) || isnan(v)) ? 0.0f : v * scale;
  }
}
