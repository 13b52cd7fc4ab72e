// GELU with the tanh approximation:
//   gelu(x) = 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))

#define SQRT_2_OVER_PI 0.7978845608028654f
#define GELU_COEF 0.044715f
#define CUBE(v) ((v) * (v) * (v))

__device__ __forceinline__ float gelu_tanh_approx(float x) {
  const float inner = SQRT_2_OVER_PI * (x + GELU_COEF * CUBE(x));
  return 0.5f * x * (1.0f + tanhf(inner));
}

__global__ void gelu_tanh(const float* __restrict__ x, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = gelu_tanh_approx(x[i]);
  }
}
