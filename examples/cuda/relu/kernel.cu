// ReLU over a flat tensor, templated on the element type as framework kernels are.

template <typename T>
__global__ void relu(const T* __restrict__ x, T* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const T v = x[i];
    out[i] = v > T(0) ? v : T(0);
  }
}
