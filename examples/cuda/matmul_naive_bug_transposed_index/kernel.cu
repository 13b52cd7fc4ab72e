// Seeded bug (mismatch): b is indexed as if it were stored transposed.
// c = a @ b for row-major a [M, K], b [K, N], c [M, N]: one thread per output element on a 2-D grid
// of 2-D blocks, x along columns (so that a warp reads consecutive elements of b and c).

__global__ void matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                             int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
      acc += a[row * K + k] * b[col * K + k];  // BUG: reads b transposed; must be b[k * N + col]
    }
    c[row * N + col] = acc;
  }
}
