// expect: 5:25: error: device function gelu_approx is declared but never defined
__device__ float gelu_approx(float x);
__global__ void act(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = gelu_approx(in[i]);
}
