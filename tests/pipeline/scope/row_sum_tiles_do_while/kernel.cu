// Row sums through shared-memory tiles of 128 columns, written as a do-while loop: every row has at
// least one column, so the first tile is always staged.
#define TILE 128

__global__ void row_sum_tiles(const float* __restrict__ x, float* __restrict__ out, int k) {
    __shared__ float tile[TILE];
    const int row = blockIdx.x;
    const int t = threadIdx.x;
    float acc = 0.0f;
    int base = 0;
    do {
        tile[t] = base + t < k ? x[row * k + base + t] : 0.0f;
        __syncthreads();
        if (t == 0) {
            for (int j = 0; j < TILE; ++j) {
                acc += tile[j];
            }
        }
        __syncthreads();
        base += TILE;
    } while (base < k);
    if (t == 0) {
        out[row] = acc;
    }
}
