// expect: 2:46: error: unsupported gnu asm expression: asm volatile("mov.u32 %0, %%laneid;" : "=r"(r))
__global__ void k(unsigned* a) { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); a[0] = r; }
