// expect: 4:18: error: unsupported inline asm (not one of the recognised PTX idioms): "cvt.rn.f16x2.e4m3x2 %0, %1;"
__device__ unsigned to_e4m3x2(unsigned short h) {
    unsigned r;
    asm volatile("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(r) : "h"(h));
    return r;
}
__global__ void k(unsigned* a) { a[threadIdx.x] = to_e4m3x2(1); }
