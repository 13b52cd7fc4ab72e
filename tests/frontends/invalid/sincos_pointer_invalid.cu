// expect: 3:31: error: sincosf needs a pointer to f32 as its output argument, got ptr<global f64>
__global__ void rope(const float* pos, double* out_sin, float* out_cos) {
    sincosf(pos[threadIdx.x], out_sin + threadIdx.x, &out_cos[threadIdx.x]);
}
