// expect: 3:5: error: unsupported packed fp8 type (__nv_fp8_e4m3, __nv_fp8_e5m2 and their storage bits are supported): __nv_fp8x2_e5m2
__global__ void quant(unsigned short* out, const float2* x) {
    __nv_fp8x2_e5m2 q = __nv_fp8x2_e5m2(x[threadIdx.x]);
    out[threadIdx.x] = *(unsigned short*)&q;
}
