// An index helper with postconditions (GPUVerify's __ensures on the returned value).
__device__ int last_index(int i, int n) {
    __requires(n > 0);
    __ensures(__return_val_int() >= 0);
    __ensures(__return_val_int() < BOUND);
    return i < n ? i : n - 1;
}

__global__ void copy_clamped(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[last_index(i, n)];
    }
}
