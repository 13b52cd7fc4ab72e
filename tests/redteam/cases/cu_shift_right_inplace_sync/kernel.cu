// Shift a sequence right by one in place, in one block: every thread reads its neighbour into a
// register, the block synchronises, then every thread writes. Correct because all reads precede all
// writes and the whole sequence fits one block.
#include <cuda_runtime.h>

__global__ void shift_right_kernel(float* x, int n) {
    int i = threadIdx.x;
    float v = 0.0f;
    if (i < n) v = x[i >= 1 ? i - 1 : 0];
    __syncthreads();
    if (i < n) x[i] = v;
}
