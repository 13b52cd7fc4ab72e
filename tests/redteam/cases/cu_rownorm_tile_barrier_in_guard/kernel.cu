// Sum of squares per row through a shared tile of 128 columns. The barriers sit inside the bounds check
// of the tile loop, so on a ragged last tile (d % 128 != 0) the threads past the row's end skip them.
#include <cuda_runtime.h>

#define TILE 128

__global__ void row_sumsq_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    __shared__ float tile[TILE];
    const float* row = x + blockIdx.x * d;
    float acc = 0.0f;
    for (int base = 0; base < d; base += TILE) {
        int c = base + threadIdx.x;
        if (c < d) {
            tile[threadIdx.x] = row[c];
            __syncthreads();
            float v = tile[threadIdx.x];
            acc += v * v;
            __syncthreads();
        }
    }
    tile[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int t = 0; t < TILE; ++t) s += tile[t];
        out[blockIdx.x] = s;
    }
}
