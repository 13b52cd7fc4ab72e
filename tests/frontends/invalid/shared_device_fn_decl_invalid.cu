// expect: 4:5: error: unsupported file-scope __shared__ variable in a device function: s_partial
__shared__ float s_partial[32];
__device__ float block_sum(float v) {
    s_partial[threadIdx.x % 32] = v;
    __syncthreads();
    return s_partial[0];
}
__global__ void k(float* out) { out[0] = block_sum(out[threadIdx.x]); }
