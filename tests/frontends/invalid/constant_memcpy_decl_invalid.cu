// expect: 3:53: error: unsupported __constant__ memory the host writes that is not a scalar or a one-dimensional array: c_scale
__constant__ float c_scale[2][2] = {{1.0f, 1.0f}, {1.0f, 1.0f}};
__global__ void scale(float* x) { x[threadIdx.x] *= c_scale[threadIdx.x % 2][0]; }
void launch(float* x, const float* h_scale) {
    cudaMemcpyToSymbol(c_scale, h_scale, 4 * sizeof(float));
    scale<<<1, 32>>>(x);
}
