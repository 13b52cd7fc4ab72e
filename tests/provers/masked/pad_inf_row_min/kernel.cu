// Row minimum, one thread per row, started from +INFINITY.
#include <math.h>

__global__ void row_min(const float* __restrict__ x, float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float m = INFINITY;
  for (int j = 0; j < cols; ++j) m = fminf(m, x[(size_t)r * cols + j]);
  out[r] = m;
}
