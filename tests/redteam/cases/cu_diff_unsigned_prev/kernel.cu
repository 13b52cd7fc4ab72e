// First difference y[i] = x[i] - x[i-1] (y[0] = x[0]), the index unsigned. The previous element is read
// before the test that zeroes it: at i = 0, i - 1 is 4294967295, far outside x.
#include <cuda_runtime.h>

__global__ void diff_kernel(const float* __restrict__ x, float* __restrict__ y, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float prev = x[i - 1];
        y[i] = x[i] - (i > 0 ? prev : 0.0f);
    }
}
