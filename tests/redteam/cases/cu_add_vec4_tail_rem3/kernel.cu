// out = a + b with float4 loads for the body and an unrolled scalar tail. The tail handles one or two
// leftover elements; the author forgot that n % 4 can be 3.
#include <cuda_runtime.h>

__global__ void add_vec4_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) {
        float4 va = reinterpret_cast<const float4*>(a)[i];
        float4 vb = reinterpret_cast<const float4*>(b)[i];
        float4 r;
        r.x = va.x + vb.x;
        r.y = va.y + vb.y;
        r.z = va.z + vb.z;
        r.w = va.w + vb.w;
        reinterpret_cast<float4*>(out)[i] = r;
    }
    if (i == 0) {
        int rem = n - n4 * 4;
        int base = n4 * 4;
        if (rem >= 1) out[base] = a[base] + b[base];
        if (rem == 2) out[base + 1] = a[base + 1] + b[base + 1];
    }
}
