// A shared-memory f32x4 transpose written as LeetCUDA writes its kernels (mat-transpose/mat_transpose.cu):
// the FLOAT4 macro over `&(value)` of a local float4 and of a shared tile, lanes of a local read through
// `reinterpret_cast<float *>(&x_val)[j]`. Launch: block (TILE / 4, TILE), grid (col / TILE, row / TILE).
#include <cuda_runtime.h>

#define TILE 16
#define FLOAT4(value) (reinterpret_cast<float4 *>(&(value))[0])

__global__ void mat_transpose_f32x4_shared_kernel(float *x, float *y,
                                                  const int row,
                                                  const int col) {
  const int local_x = threadIdx.x;  // a float4 of the tile's row
  const int local_y = threadIdx.y;
  const int global_x = blockIdx.x * TILE + local_x * 4;
  const int global_y = blockIdx.y * TILE + local_y;
  __shared__ float tile[TILE][TILE + 4];
  if (global_x < col && global_y < row) {
    float4 x_val = FLOAT4(x[global_y * col + global_x]);
    FLOAT4(tile[local_y][local_x * 4]) = FLOAT4(x_val);
    __syncthreads();
    float4 smem_val;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      reinterpret_cast<float *>(&smem_val)[j] = tile[local_x * 4 + j][local_y];
    }
    const int out_y = blockIdx.x * TILE + local_y;
    const int out_x = blockIdx.y * TILE + local_x * 4;
    FLOAT4(y[out_y * row + out_x]) = FLOAT4(smem_val);
  }
}

// Seeded bug: the tile is read back untransposed (`tile[local_y][local_x * 4 + j]`).
__global__ void mat_transpose_f32x4_shared_bug_kernel(float *x, float *y,
                                                      const int row,
                                                      const int col) {
  const int local_x = threadIdx.x;
  const int local_y = threadIdx.y;
  const int global_x = blockIdx.x * TILE + local_x * 4;
  const int global_y = blockIdx.y * TILE + local_y;
  __shared__ float tile[TILE][TILE + 4];
  if (global_x < col && global_y < row) {
    float4 x_val = FLOAT4(x[global_y * col + global_x]);
    FLOAT4(tile[local_y][local_x * 4]) = FLOAT4(x_val);
    __syncthreads();
    float4 smem_val;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      reinterpret_cast<float *>(&smem_val)[j] = tile[local_y][local_x * 4 + j];
    }
    const int out_y = blockIdx.x * TILE + local_y;
    const int out_x = blockIdx.y * TILE + local_x * 4;
    FLOAT4(y[out_y * row + out_x]) = FLOAT4(smem_val);
  }
}
