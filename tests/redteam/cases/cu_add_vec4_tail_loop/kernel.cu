// out = a + b with float4 loads for the body; the last n % 4 elements are done by the threads of the
// last float4 slot's neighbours, one each (any n).
#include <cuda_runtime.h>

__global__ void add_vec4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n >> 2;
    if (i < n4) {
        float4 va = reinterpret_cast<const float4*>(a)[i];
        float4 vb = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(out)[i] = make_float4(va.x + vb.x, va.y + vb.y, va.z + vb.z, va.w + vb.w);
    }
    int t = (n4 << 2) + i;  // thread i takes tail element i
    if (i < (n & 3) && t < n) {
        out[t] = a[t] + b[t];
    }
}
