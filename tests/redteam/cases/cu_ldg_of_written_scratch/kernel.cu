// Rotate-and-scale in one block through a global scratch buffer: phase 1 writes tmp, a barrier, phase 2
// reads a neighbour's tmp through __ldg. __ldg goes through the read-only (non-coherent) data cache and
// requires the data to be read-only for the whole kernel: the barrier does not make phase 1's stores
// visible to it, and the load may return what tmp held before the launch.
#include <cuda_runtime.h>

__global__ void rotate_scale_kernel(const float* __restrict__ x, float* tmp, float* __restrict__ y, int n) {
    int i = threadIdx.x;
    if (i < n) tmp[i] = 2.0f * x[i];
    __syncthreads();
    if (i < n) y[i] = __ldg(&tmp[i + 1 < n ? i + 1 : 0]);
}
