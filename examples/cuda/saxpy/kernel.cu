// BLAS-style saxpy, out = a * x + y, with the scalar `a` passed by value.

__global__ void saxpy(int n, float a, const float* __restrict__ x, const float* __restrict__ y,
                      float* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = a * x[i] + y[i];
  }
}
