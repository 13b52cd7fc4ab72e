// Row sum through a dynamic shared copy of the whole row (so that a later fused op can reuse it). The
// host sizes the dynamic shared memory as 4 * d bytes: past 48 KiB (d > 12288) a launch without the
// cudaFuncAttributeMaxDynamicSharedMemorySize opt-in fails, and past 227 KiB no GPU has that much.
#include <cuda_runtime.h>

__global__ void row_sum_smem_kernel(const float* __restrict__ x, float* __restrict__ out, int d) {
    extern __shared__ float row[];
    for (int c = threadIdx.x; c < d; c += blockDim.x) row[c] = x[blockIdx.x * d + c];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int c = 0; c < d; ++c) s += row[c];
        out[blockIdx.x] = s;
    }
}
