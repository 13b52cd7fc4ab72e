// Seeded bug: the guard tests isnan only and scales by the wrong operand order of a fused
// multiply-add (v * scale + v), so finite elements differ from the reference.
#include <cuda_runtime.h>

__global__ void nonfinite_guard_kernel(float* __restrict__ out, const float* __restrict__ input,
                                       const float scale, const int num_elems) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < num_elems; i += blockDim.x * gridDim.x) {
    const float v = input[i];
    out[i] = isnan(v) ? 0.0f : fmaf(v, scale, v);
  }
}
