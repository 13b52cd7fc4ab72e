// Two kernels for a problem whose true outputs are tiny (y = x * 1e-7): one computes them, the other
// writes zeros everywhere (the "tolerance cheat" a comparison with an absolute floor of 1 lets pass).

__global__ void scale_tiny(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[i] * 1e-7f;
    }
}

__global__ void zeros_instead(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 0.0f;
    }
}
