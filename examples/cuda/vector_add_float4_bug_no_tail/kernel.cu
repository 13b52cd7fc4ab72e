// Seeded bug (oob): the tail is "handled" by rounding the float4 count up instead of a scalar loop.
// Vectorised vector addition: each thread moves one float4 (16 bytes) per operand. Buffers come
// from cudaMalloc, so their base addresses are 16-byte aligned.

__global__ void vector_add_float4(const float* __restrict__ x, const float* __restrict__ y,
                                  float* __restrict__ out, int n) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  const int n4 = (n + 3) / 4;  // BUG: rounds up, so the last float4 runs past the end when n % 4 != 0
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
}
