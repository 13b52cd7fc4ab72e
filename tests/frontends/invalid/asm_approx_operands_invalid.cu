// expect: 4:5: error: unsupported inline asm operands other than ('=h',) : ('h',): asm volatile("ex2.approx.f16 %0, %1;" : "=f"(y) : "f"(x))
__device__ float ptx_exp2(float x) {
    float y;
    asm volatile("ex2.approx.f16 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__global__ void k(float* a) { a[threadIdx.x] = ptx_exp2(a[threadIdx.x]); }
