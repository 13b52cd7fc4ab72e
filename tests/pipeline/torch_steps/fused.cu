// Epilogues fused after a convolution PyTorch computes (the level-2 pattern: conv in PyTorch, the rest in CUDA).
#include <cuda_runtime.h>

// out = relu(t + bias[c]) over an NCHW tensor; one thread per element.
__global__ void bias_relu_kernel(const float* __restrict__ t, const float* __restrict__ bias,
                                 float* __restrict__ out, int total, int channels, int hw) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    int c = (idx / hw) % channels;
    float v = t[idx] + bias[c];
    out[idx] = v > 0.0f ? v : 0.0f;
}

// out = clamp(t * scale, lo, hi), grid-stride.
__global__ void scale_clamp_kernel(const float* __restrict__ t, float* __restrict__ out, int total,
                                   float scale, float lo, float hi) {
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += blockDim.x * gridDim.x) {
        float v = t[idx] * scale;
        out[idx] = fminf(fmaxf(v, lo), hi);
    }
}

// Seeded bug: the bias is never added.
__global__ void relu_no_bias_kernel(const float* __restrict__ t, const float* __restrict__ bias,
                                    float* __restrict__ out, int total, int channels, int hw) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= total) return;
    float v = t[idx];
    out[idx] = v > 0.0f ? v : 0.0f;
}
