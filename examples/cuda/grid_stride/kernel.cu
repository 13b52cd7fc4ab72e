// Clamp with a grid-stride loop: a fixed, small grid covers any n, each thread taking every
// (gridDim.x * blockDim.x)-th element. size_t indices as in code written for very large tensors.
#include <cstddef>

__global__ void clamp_grid_stride(const float* __restrict__ x, float* __restrict__ out, float lo, float hi,
                                  size_t n) {
  const size_t stride = static_cast<size_t>(blockDim.x) * gridDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = fminf(fmaxf(x[i], lo), hi);
  }
}
