// Matrix transpose through a shared-memory tile, as in the classic CUDA example: a 32x32 tile of
// idata is read row-wise (coalesced) and written to odata column-wise, and the tile's rows are padded
// to 33 floats so that reading a column hits 32 different banks. Blocks are 32x8 threads; each thread moves
// TILE_DIM / BLOCK_ROWS = 4 elements. Bounds checks make ragged matrices work.

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_shared(float* __restrict__ odata, const float* __restrict__ idata, int rows,
                                 int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;  // column of `idata`
  int y = blockIdx.y * TILE_DIM + threadIdx.y;  // row of `idata`
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < cols && y + j < rows) {
      tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * cols + x];
    }
  }
  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;  // column of `odata` = row of `idata`
  y = blockIdx.x * TILE_DIM + threadIdx.y;  // row of `odata` = column of `idata`
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < rows && y + j < cols) {
      odata[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
  }
}
