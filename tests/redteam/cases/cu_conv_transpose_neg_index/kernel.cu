// 1-D transposed convolution, stride 2, kernel size 3, no padding: out[i] = sum_k w[k] * x[(i - k) / 2]
// over the k with i - k even and in range. The range check forgot i - k >= 0, trusting that (i - k) / 2
// of a negative would fail `src < n_in` - but C's / truncates: -2 / 2 == -1 passes, and x[-1] is read.
#include <cuda_runtime.h>

__global__ void conv_transpose1d_s2_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out, int n_in, int n_out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_out) return;
    float acc = 0.0f;
    for (int k = 0; k < 3; ++k) {
        int t = i - k;
        if (t % 2 == 0 && t / 2 < n_in) acc += w[k] * x[t / 2];
    }
    out[i] = acc;
}
