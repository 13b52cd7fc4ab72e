// Classic "reduction #6": shared tree down to 64 elements, then the last warp unrolled without
// barriers, relying on warp-synchronous execution through a volatile pointer. Since Volta (independent
// thread scheduling) the lanes of a warp are not in lockstep: without __syncwarp() between steps a
// lane can read a slot before its neighbour has written it.
#include <cuda_runtime.h>

__device__ void warp_reduce(volatile float* s, int tid) {
    s[tid] += s[tid + 32];
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

__global__ void reduce6_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float s[128];
    int tid = threadIdx.x;
    int i = blockIdx.x * 128 + tid;
    s[tid] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
    if (tid < 32) warp_reduce(s, tid);
    if (tid == 0) atomicAdd(out, s[0]);
}
