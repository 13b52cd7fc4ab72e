// ReLU written with an if/else around the stores, as hand-written elementwise kernels often are.
__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    if (x[i] > 0.0f) {
      out[i] = x[i];
    } else {
      out[i] = 0.0f;
    }
  }
}
