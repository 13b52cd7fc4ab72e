// expect: 4:62: error: unsupported inline asm operand of type f32 in an integer register: x[threadIdx.x]
__global__ void k(const float* x, float* y) {
    unsigned r;
    asm volatile("tanh.approx.f16x2 %0, %1;" : "=r"(r) : "r"(x[threadIdx.x]));
    y[threadIdx.x] = r;
}
