// A precondition that depends on the thread (every thread of the block has an element) before a barrier.
__global__ void rotate(const float* x, float* out, int n) {
    __requires(threadIdx.x < n);
    __shared__ float t[1024];
    t[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = t[(threadIdx.x + 1) % blockDim.x];
}
