// Vectorised vector addition: each thread moves one float4 (16 bytes) per operand, and the last
// n % 4 elements, which do not fill a float4, are added one by one. Buffers come from cudaMalloc,
// so their base addresses are 16-byte aligned.

__global__ void vector_add_float4(const float* __restrict__ x, const float* __restrict__ y,
                                  float* __restrict__ out, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int n4 = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const float4* y4 = reinterpret_cast<const float4*>(y);
  float4* out4 = reinterpret_cast<float4*>(out);
  if (idx < n4) {
    const float4 a = x4[idx];
    const float4 b = y4[idx];
    float4 c;
    c.x = a.x + b.x;
    c.y = a.y + b.y;
    c.z = a.z + b.z;
    c.w = a.w + b.w;
    out4[idx] = c;
  }
  // Scalar tail: at most three elements, taken by the first threads of the grid.
  for (int i = n4 * 4 + idx; i < n; i += blockDim.x * gridDim.x) {
    out[i] = x[i] + y[i];
  }
}
