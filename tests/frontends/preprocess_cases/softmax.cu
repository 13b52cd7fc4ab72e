// Row-wise softmax, one block per row: a macro-heavy kernel in the style of real code.
#include <cuda_runtime.h>
#include <cfloat>
#include "common.cuh"

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 256
#endif

#define FULL_MASK 0xffffffffu
#define IDX2(r, c, ld) ((r) * (ld) + (c))

#if __CUDA_ARCH__ >= 800 && !defined(LARKC_SLOW_EXP)
#define USE_FAST_EXP 1
#else
#define USE_FAST_EXP 0
#endif

#if USE_FAST_EXP
#define EXP(x) __expf(x)
#else
#define EXP(x) expf(x)
#endif

#define WARP_REDUCE(op, v)                                          \
    do {                                                            \
        _Pragma("unroll")                                           \
        for (int off = WARP_SIZE / 2; off > 0; off >>= 1)           \
            v = op(v, __shfl_xor_sync(FULL_MASK, v, off));          \
    } while (0)

__global__ void softmax(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float red[CEIL_DIV(BLOCK_SIZE, WARP_SIZE)];
    const int row = blockIdx.x;
    float m = -FLT_MAX;  /* FLT_MAX: <cfloat> is modelled by larkc */
    for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) {
        m = fmaxf(m, x[IDX2(row, c, cols)]);
    }
    WARP_REDUCE(fmaxf, m);
    float s = 0.0f;
    #pragma unroll 4
    for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) {
        s += EXP(x[IDX2(row, c,
                        cols)] - m);
    }
    red[threadIdx.x / WARP_SIZE] = s;
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) {
        y[IDX2(row, c, cols)] = EXP(x[IDX2(row, c, cols)] - m) / red[0];
    }
}
