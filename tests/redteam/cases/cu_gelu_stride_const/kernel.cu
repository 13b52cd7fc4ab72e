// tanh-free "quick GELU" x * sigmoid(1.702 x) over a grid-stride loop whose stride was hard-coded to the
// launch the author tested (4 blocks of 256 threads) instead of blockDim.x * gridDim.x. The host caps the
// grid at 2 blocks, so elements [512, 1024) of every 1024 are skipped once n > 512.
#include <cuda_runtime.h>

#define STRIDE 1024

__global__ void quick_gelu_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += STRIDE) {
        float v = x[i];
        out[i] = v / (1.0f + expf(-1.702f * v));
    }
}
