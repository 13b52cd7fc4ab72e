// expect: 5:5: error: unsupported __requires other than among the first statements of a function: __requires(n <= 1024)
// GPUVerify's precondition must open the kernel: after a statement it would not be a precondition.
__global__ void scale(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __requires(n <= 1024);
    if (i < n) x[i] *= 2.0f;
}
