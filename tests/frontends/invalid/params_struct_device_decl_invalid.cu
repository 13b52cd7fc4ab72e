// expect: 8:26: error: unsupported struct with pointer members other than as a kernel's by-value parameter: AttnParams p
// a parameter struct of pointers is modelled as a kernel's by-value parameter only
struct AttnParams {
    const float* q;
    float* out;
    int n;
};
__device__ void copy_row(AttnParams p, int i) { p.out[i] = p.q[i]; }
__global__ void attn(AttnParams p) {
    if (threadIdx.x < p.n) copy_row(p, threadIdx.x);
}
