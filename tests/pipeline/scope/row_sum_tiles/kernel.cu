// Row sums, one block of 128 threads per row: the row is staged through shared memory one tile of 128
// columns at a time, and thread 0 adds up each tile.
//
// Thread 0 is done with a tile before the next one is staged (the second barrier).
#define TILE 128

__global__ void row_sum_tiles(const float* __restrict__ x, float* __restrict__ out, int k) {
    __shared__ float tile[TILE];
    const int row = blockIdx.x;
    const int t = threadIdx.x;
    float acc = 0.0f;
    for (int base = 0; base < k; base += TILE) {
        tile[t] = base + t < k ? x[row * k + base + t] : 0.0f;
        __syncthreads();
        if (t == 0) {
            for (int j = 0; j < TILE; ++j) {
                acc += tile[j];
            }
        }
        __syncthreads();
        if (k - base <= TILE) {
            break;  // that was the last tile
        }
    }
    if (t == 0) {
        out[row] = acc;
    }
}
