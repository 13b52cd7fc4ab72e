// expect: 2:59: error: unsupported inline asm (not one of the recognised PTX idioms): "mov.u32 %0, %%warpid;"
__global__ void k(unsigned* a) { unsigned r; asm volatile("mov.u32 %0, %%warpid;" : "=r"(r)); a[0] = r; }
