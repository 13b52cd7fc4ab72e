// Row argmax, one warp per row. The per-lane scan uses >=, so on ties the lane keeps the last index;
// torch.argmax returns the first.
#include <cuda_runtime.h>
#include <cstdint>
#include <cfloat>

__global__ void argmax_kernel(const float* __restrict__ x, int64_t* __restrict__ idx, int d) {
    const float* r = x + blockIdx.x * d;
    float best = -FLT_MAX;
    int arg = 0;
    for (int c = threadIdx.x; c < d; c += 32) {
        if (r[c] >= best) { best = r[c]; arg = c; }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float ob = __shfl_down_sync(0xffffffff, best, o);
        int oa = __shfl_down_sync(0xffffffff, arg, o);
        if (ob > best || (ob == best && oa > arg)) { best = ob; arg = oa; }
    }
    if (threadIdx.x == 0) idx[blockIdx.x] = arg;
}
