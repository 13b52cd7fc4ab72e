// Seeded bug (race): the barrier that ends each step along K is missing.
// Tiled matrix multiplication c = a @ b (row-major a [M, K], b [K, N], c [M, N]) with static shared
// tiles: each TILE x TILE block stages one tile of a and one of b per step along K. Tiles that stick
// out of the matrices are padded with zeros, so M, N and K need not be multiples of TILE.

#ifndef TILE
#define TILE 16
#endif

#if TILE > 32
#error "TILE * TILE threads must fit in one block"
#endif

__global__ void matmul_tiled(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                             int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;

  float acc = 0.0f;
  const int num_tiles = (K + TILE - 1) / TILE;
  for (int t = 0; t < num_tiles; ++t) {
    const int a_col = t * TILE + tx;
    const int b_row = t * TILE + ty;
    As[ty][tx] = (row < M && a_col < K) ? a[row * K + a_col] : 0.0f;
    if (b_row < K && col < N) {
      Bs[ty][tx] = b[b_row * N + col];
    } else {
      Bs[ty][tx] = 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) {
      acc += As[ty][k] * Bs[k][tx];
    }
    // BUG: no __syncthreads() here: a fast thread starts overwriting As/Bs with the next tile
    // while slower threads of the block are still reading the current one.
  }
  if (row < M && col < N) {
    c[row * N + col] = acc;
  }
}
