// SiLU (swish), x * sigmoid(x) written as x / (1 + e^-x). Built with -DUSE_FAST_MATH it uses the
// hardware exponential approximation, as fast-math builds of activation kernels do.
#include <cstdint>

#ifdef USE_FAST_MATH
#define EXP(v) __expf(v)
#else
#define EXP(v) expf(v)
#endif

__global__ void silu(const float* __restrict__ x, float* __restrict__ out, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    out[i] = v / (1.0f + EXP(-v));
  }
}
