// Row sums, one block of 128 threads per row: the row is staged through shared memory one tile of 128
// columns at a time, and thread 0 adds up each tile.
//
// Bug: no barrier between thread 0's reads of a tile and the next tile's stores. A row of at most 128
// columns has one tile and is right; from 129 columns on, the second tile's stores race with thread 0.
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
        if (k - base <= TILE) {
            break;  // that was the last tile
        }
    }
    if (t == 0) {
        out[row] = acc;
    }
}
