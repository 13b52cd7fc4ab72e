// expect: 3:25: error: cannot convert f32 to f8e5m2x2
__global__ void quant(unsigned short* out, const float2* x) {
    __nv_fp8x2_e5m2 q = __nv_fp8x2_e5m2(x[threadIdx.x].x);
    out[threadIdx.x] = *(unsigned short*)&q;
}
