// expect: 3:53: error: unsupported __constant__ memory the host writes that is not an array: c_scale
__constant__ float c_scale = 1.0f;
__global__ void scale(float* x) { x[threadIdx.x] *= c_scale; }
void launch(float* x, const float* h_scale) {
    cudaMemcpyToSymbol(c_scale, h_scale, sizeof(float));
    scale<<<1, 32>>>(x);
}
