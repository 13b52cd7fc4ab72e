// A copy through a shared tile of 64 elements, for launches of any block size: in bounds only for
// blocks of at most 64 threads, which the kernel's precondition (GPUVerify's __requires) demands.
__global__ void tile_copy(const float* x, float* out, int n) {
    __requires(blockDim.x <= 64);
    __shared__ float tile[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) {
        out[i] = tile[threadIdx.x];
    }
}
