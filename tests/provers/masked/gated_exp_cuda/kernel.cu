// exp(x) where the gate is open, 0 where it is closed: a closed lane takes exp(-inf), which is 0.
#include <math.h>

__global__ void gated_exp(const float* __restrict__ x, const bool* __restrict__ gate, float* __restrict__ y,
                          int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = gate[i] ? x[i] : -INFINITY;
    y[i] = expf(v);
}
