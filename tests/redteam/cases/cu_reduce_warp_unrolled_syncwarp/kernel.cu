// Shared tree down to 64 elements, then the last warp with a read, __syncwarp(), write, __syncwarp()
// per step (the Volta-safe form of the unrolled warp reduction).
#include <cuda_runtime.h>

__global__ void reduce6_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float s[128];
    int tid = threadIdx.x;
    int i = blockIdx.x * 128 + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
    if (tid < 32) {
        float v = s[tid];
        for (int off = 32; off > 0; off >>= 1) {
            v += s[tid + off];
            __syncwarp();
            s[tid] = v;
            __syncwarp();
        }
    }
    if (tid == 0) atomicAdd(out, s[0]);
}
